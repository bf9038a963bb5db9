"""The configuration: precedence, sources, validation, secrets, minimal edits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.config import (
    PROJECT_FILE,
    Config,
    ConfigError,
    HookConfig,
    default_store,
    describe,
    effective_store_url,
    format_config,
    hook_store_url,
    is_secret_key,
    load_config,
    mask_url,
    parse_key,
    repository_root,
    set_value,
    storage_options_for,
    user_config_path,
)
from sessionkit.errors import SessionKitError


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME and XDG config dir, no SESSIONKIT_* variables, cwd in a repo."""
    for name in list(os.environ):
        if name.startswith("SESSIONKIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(repo / "src" / "deep")
    return tmp_path


def user_file(home: Path) -> Path:
    path = home / "xdg" / "sessionkit" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# -- precedence ------------------------------------------------------------------------


def test_defaults_point_at_the_repository_root(home: Path) -> None:
    config = load_config()
    assert config.store == str(home / "repo")
    assert config.source("store.url").kind == "default"
    assert config.layout is None and config.format is None
    assert config.hooks == HookConfig()
    assert config.limits.max_note_bytes == 8 * 1024 * 1024


def test_repository_root_prefers_the_nearest_aiwiki_or_git(home: Path) -> None:
    nested = home / "repo" / "src" / "wikiproj"
    (nested / "aiwiki").mkdir(parents=True)
    assert repository_root(nested / "aiwiki") == nested
    assert repository_root(home / "repo" / "src" / "deep") == home / "repo"
    bare = home / "bare"
    bare.mkdir()
    assert repository_root(bare) == bare


def test_user_file_is_read_from_the_xdg_config_dir(home: Path) -> None:
    assert user_config_path() == home / "xdg" / "sessionkit" / "config.toml"
    user_file(home).write_text('[store]\nformat = "basic-memory"\n')
    config = load_config()
    assert config.format == "basic-memory"
    src = config.source("store.format")
    assert (src.kind, src.file, src.line) == ("user", str(user_file(home)), 2)


def test_sessionkit_config_variable_names_the_user_file(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = home / "elsewhere.toml"
    other.write_text('[basic_memory]\nproject = "work"\n')
    monkeypatch.setenv("SESSIONKIT_CONFIG", str(other))
    assert load_config().bm_project == "work"


def test_project_file_is_found_walking_up_and_beats_the_user_file(home: Path) -> None:
    user_file(home).write_text('[store]\nformat = "basic-memory"\nlayout = "basic-memory"\n')
    project = home / "repo" / PROJECT_FILE
    project.write_text('# team settings\n[store]\nformat = "aiwiki-v2"\n')
    config = load_config()
    assert config.format == "aiwiki-v2"
    assert config.layout == "basic-memory"  # not set by the project: the user file shows
    assert config.source("store.format").file == str(project)
    assert config.source("store.format").line == 3
    assert config.source("store.layout").kind == "user"


def test_environment_beats_the_project_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (home / "repo" / PROJECT_FILE).write_text(
        '[store]\nurl = "wiki"\n[limits]\nmax_note_bytes = 100\n'
    )
    monkeypatch.setenv("SESSIONKIT_STORE", "memory://env")
    monkeypatch.setenv("SESSIONKIT_MAX_NOTE_BYTES", "2048")
    monkeypatch.setenv("SESSIONKIT_BM_PROJECT", "")  # empty means unset
    config = load_config()
    assert config.store == "memory://env"
    assert config.limits.max_note_bytes == 2048
    assert config.bm_project is None
    assert str(config.source("store.url")) == "env SESSIONKIT_STORE"


def test_overrides_beat_everything(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONKIT_FORMAT", "basic-memory")
    config = load_config(overrides={"store.format": "aiwiki-v1", "store.layout": None})
    assert config.format == "aiwiki-v1"
    assert config.source("store.format").kind == "flag"


def test_explicit_env_mapping_replaces_os_environ(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSIONKIT_FORMAT", "basic-memory")
    assert load_config(env={}).format is None
    assert load_config(env={"SESSIONKIT_LAYOUT": "aiwiki"}).layout == "aiwiki"


def test_hook_payload_cwd_picks_up_that_projects_file(home: Path) -> None:
    other = home / "other-project"
    (other / "pkg").mkdir(parents=True)
    (other / PROJECT_FILE).write_text(
        '[hooks]\nstore = "notes"\nsession_start_output = "plain"\ndirective_kind = "Wrap"\n'
    )
    config = load_config(start_dir=other / "pkg")
    assert config.hooks.session_start_output == "plain"
    assert config.hooks.directive_kind == "Wrap"
    # a relative store in a file is relative to that file's folder
    assert config.hooks.store == str(other / "notes")
    assert hook_store_url(config) == str(other / "notes")
    # and the cwd's project (none) was not consulted
    assert load_config().hooks == HookConfig()
    assert hook_store_url(load_config()) == str(home / "repo")


def test_relative_store_urls_resolve_against_the_file_and_urls_stay(home: Path) -> None:
    (home / "repo" / PROJECT_FILE).write_text('[store]\nurl = "wiki"\n')
    assert load_config().store == str(home / "repo" / "wiki")
    # the rule of --store: a relative path stays inside (the file's folder), an
    # absolute one means exactly that folder
    (home / "repo" / PROJECT_FILE).write_text('[store]\nurl = "../shared-wiki"\n')
    with pytest.raises(ConfigError, match="outside that folder") as info:
        load_config()
    assert (info.value.path, info.value.line) == (str(home / "repo" / PROJECT_FILE), 2)
    (home / "repo" / PROJECT_FILE).write_text(f'[store]\nurl = "{home / "shared-wiki"}"\n')
    assert load_config().store == str(home / "shared-wiki")
    (home / "repo" / PROJECT_FILE).write_text('[store]\nurl = "s3://bucket/wiki"\n')
    assert load_config().store == "s3://bucket/wiki"


def test_storage_options_merge_per_prefix_and_per_option(home: Path) -> None:
    user_file(home).write_text(
        '[storage_options."s3://"]\nanon = false\n'
        '[storage_options."s3://team"]\nprofile = "dev"\nendpoint_url = "http://user"\n'
    )
    (home / "repo" / PROJECT_FILE).write_text(
        '[store]\nurl = "s3://team/wiki"\n'
        '[storage_options."s3://team"]\nendpoint_url = "http://project"\n'
    )
    config = load_config()
    options = storage_options_for(config, "s3://team/wiki")
    assert options == {"anon": False, "profile": "dev", "endpoint_url": "http://project"}
    # a prefix matches whole path segments only
    assert storage_options_for(config, "s3://teammate/x") == {"anon": False}
    assert storage_options_for(config, "gcs://team") == {}
    url, opts = default_store()
    assert url == "s3://team/wiki" and opts["endpoint_url"] == "http://project"


def test_basic_memory_layout_defaults_to_the_bm_project(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_file(home).write_text('[store]\nlayout = "basic-memory"\n')
    config = load_config()
    assert config.store == "bm://"
    assert config.source("store.url").name == "Basic Memory project"
    monkeypatch.setenv("SESSIONKIT_BM_PROJECT", "work")
    assert load_config().store == "bm://work"
    (home / "repo" / PROJECT_FILE).write_text('[store]\nurl = "bm://"\nlayout = "aiwiki"\n')
    config = load_config()
    assert config.store == "bm://work"
    assert config.source("store.url").kind == "project"
    assert effective_store_url(Config(layout="basic-memory", bm_project="p")) == "bm://p"
    assert effective_store_url(Config(store="bm://", bm_project="p")) == "bm://p"


# -- the Python API reads nothing unless asked -----------------------------------------------


def test_an_explicit_config_reads_no_files(home: Path) -> None:
    (home / "repo" / PROJECT_FILE).write_text('[store]\nurl = "s3://bucket/x"\n')
    config = Config()
    assert config.store is None
    assert effective_store_url(config) == str(home / "repo")
    assert effective_store_url(Config(store="memory://a")) == "memory://a"
    assert Config(storage_options={"memory://": {"a": 1}}) == Config(
        storage_options={"memory://": {"a": 1}}
    )


def test_hook_output_is_validated() -> None:
    with pytest.raises(ConfigError):
        HookConfig(session_start_output="xml")


# -- malformed files ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('[store]\nurl = "a"\nlayout = \n', 3, ["bad TOML"]),
        ('[store]\nurl = "a"\nurl = "b"\n', 3, ["bad TOML"]),
        ('[store]\n\nurll = "a"\n', 3, ["store.urll", "unknown key"]),
        ('[stores]\nurl = "a"\n', 1, ["stores", "unknown key"]),
        ("[limits]\n# the cap\nmax_note_bytes = true\n", 3, ["limits.max_note_bytes", "integer"]),
        ("[limits]\nmax_note_bytes = -5\n", 2, ["positive"]),
        ("[store]\nurl = 7\n", 2, ["store.url", "string"]),
        ('store = "x"\n', 1, ["store", "table"]),
        ('[hooks]\nsession_start_output = "xml"\n', 2, ["json, plain"]),
        ("[storage_options]\nprofile = 'dev'\n", 2, ["storage_options.profile", "prefix"]),
        (
            '[storage_options."s3://b"]\nwhen = 2026-05-18T00:00:00Z\n',
            2,
            ['storage_options."s3://b".when'],
        ),
    ],
)
def test_malformed_project_file_names_file_line_and_key(
    home: Path, text: str, line: int, words: list[str]
) -> None:
    project = home / "repo" / PROJECT_FILE
    project.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config()
    err = info.value
    assert isinstance(err, SessionKitError)
    assert err.path == str(project)
    assert err.line == line
    for word in words:
        assert word in str(err)
    assert str(err).startswith(f"{project}:{line}: ")


def test_malformed_user_file_is_an_error_too(home: Path) -> None:
    user_file(home).write_bytes(b'[store]\nurl = "\xff"\n')
    with pytest.raises(ConfigError) as info:
        load_config()
    assert info.value.path == str(user_file(home)) and info.value.line == 2


def test_bad_environment_value_names_the_variable(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSIONKIT_MAX_PAYLOAD_BYTES", "lots")
    with pytest.raises(ConfigError, match="SESSIONKIT_MAX_PAYLOAD_BYTES"):
        load_config()
    monkeypatch.setenv("SESSIONKIT_MAX_PAYLOAD_BYTES", "1_000")
    assert load_config().limits.max_payload_bytes == 1000
    monkeypatch.setenv("SESSIONKIT_HOOK_OUTPUT", "yaml")
    with pytest.raises(ConfigError, match="SESSIONKIT_HOOK_OUTPUT"):
        load_config()


# -- secrets ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["secret", "aws_secret_access_key", "password", "token", "session_token", "key",
     "access_key", "api-key", "credentials", "auth"],
)  # fmt: skip
def test_secret_looking_names(name: str) -> None:
    assert is_secret_key(name)


@pytest.mark.parametrize("name", ["endpoint_url", "profile", "anon", "region_name", "monkey"])
def test_ordinary_names(name: str) -> None:
    assert not is_secret_key(name)


def test_config_show_masks_secrets(home: Path) -> None:
    (home / "repo" / PROJECT_FILE).write_text(
        '[store]\nurl = "https://me:hunter2@example.org/wiki"\n'
        '[storage_options."https://example.org"]\npassword = "hunter2"\nprofile = "dev"\n'
        'client_kwargs = {api_key = "hunter2", region = "eu"}\n'
    )
    config = load_config()
    text = format_config(config)
    rows = {row["key"]: row for row in describe(config)}
    assert "hunter2" not in text
    assert "hunter2" not in repr(rows)
    assert rows['storage_options."https://example.org".password']["value"] == "***"
    assert rows['storage_options."https://example.org".profile']["value"] == "dev"
    assert rows['storage_options."https://example.org".client_kwargs']["value"] == {
        "api_key": "***",
        "region": "eu",
    }
    assert rows["store.url"]["value"] == "https://me:***@example.org/wiki"
    assert mask_url("s3://bucket/x") == "s3://bucket/x"


def test_config_set_refuses_secrets(home: Path) -> None:
    project = home / "repo" / PROJECT_FILE
    project.write_text("# mine\n")
    for key, value in [
        ("storage_options.s3://b.secret", "x"),
        ("storage_options.s3://b.key", "AKIA"),
        ('storage_options."s3://b".aws_session_token', "x"),
        ("store.url", "https://me:pw@host/wiki"),
    ]:
        with pytest.raises(ConfigError, match="credential") as info:
            set_value(key, value)
        assert "fsspec" in str(info.value)
    assert project.read_text() == "# mine\n"


# -- config set: minimal edits -------------------------------------------------------------------

ORIGINAL = """\
# sessionkit settings for this repo
[store]  # where notes live
url = "wiki"   # relative to this file
format = "aiwiki-v2"

# hooks: keep JSON for Claude Code
[hooks]
directive_kind = "Dream"
"""


def test_set_changes_only_that_line_and_keeps_comments(home: Path) -> None:
    project = home / "repo" / PROJECT_FILE
    project.write_text(ORIGINAL)
    written = set_value("store.url", "s3://team/wiki")
    assert written == project
    assert project.read_text() == ORIGINAL.replace(
        'url = "wiki"   # relative', 'url = "s3://team/wiki"   # relative'
    )
    assert load_config().store == "s3://team/wiki"


def test_set_adds_one_line_at_the_end_of_its_table(home: Path) -> None:
    project = home / "repo" / PROJECT_FILE
    project.write_text(ORIGINAL)
    set_value("store.layout", "aiwiki")
    lines = project.read_text().splitlines()
    before = ORIGINAL.splitlines()
    assert lines == [*before[:4], 'layout = "aiwiki"', *before[4:]]


def test_set_creates_a_missing_table_at_the_end(home: Path) -> None:
    project = home / "repo" / PROJECT_FILE
    project.write_text(ORIGINAL)
    set_value("limits.max_note_bytes", "65536")
    set_value("storage_options.s3://team.endpoint_url", "http://localhost:9000")
    set_value("storage_options.s3://team.anon", "true")
    text = project.read_text()
    assert text.startswith(ORIGINAL)
    assert text[len(ORIGINAL) :] == (
        "\n[limits]\nmax_note_bytes = 65536\n"
        '\n[storage_options."s3://team"]\nendpoint_url = "http://localhost:9000"\nanon = true\n'
    )
    config = load_config()
    assert config.limits.max_note_bytes == 65536
    assert storage_options_for(config, "s3://team/wiki") == {
        "endpoint_url": "http://localhost:9000",
        "anon": True,
    }


def test_set_creates_the_project_file_at_the_repository_root(home: Path) -> None:
    written = set_value("basic_memory.project", "main")
    assert written == home / "repo" / PROJECT_FILE
    assert written.read_text() == '[basic_memory]\nproject = "main"\n'


def test_set_user_scope_writes_the_user_file(home: Path) -> None:
    written = set_value("hooks.session_start_output", "plain", scope="user")
    assert written == home / "xdg" / "sessionkit" / "config.toml"
    assert load_config().hooks.session_start_output == "plain"
    assert load_config().source("hooks.session_start_output").kind == "user"


def test_set_keeps_crlf_and_a_missing_final_newline(home: Path) -> None:
    project = home / "repo" / PROJECT_FILE
    project.write_bytes(b'[store]\r\nurl = "a" # c\r\n[hooks]\r\nstore = "b"')
    set_value("hooks.directive_kind", "Wrap")
    set_value("store.url", "z")
    assert project.read_bytes() == (
        b'[store]\r\nurl = "z" # c\r\n[hooks]\r\nstore = "b"\r\ndirective_kind = "Wrap"\r\n'
    )


def test_set_validates_values_and_keys(home: Path) -> None:
    with pytest.raises(ConfigError, match="integer"):
        set_value("limits.max_note_bytes", "big")
    with pytest.raises(ConfigError, match="json, plain"):
        set_value("hooks.session_start_output", "xml")
    with pytest.raises(ConfigError, match="unknown configuration key"):
        set_value("store.urll", "x")
    assert not (home / "repo" / PROJECT_FILE).exists()


def test_set_refuses_to_touch_a_malformed_file(home: Path) -> None:
    project = home / "repo" / PROJECT_FILE
    project.write_text("[store]\nurll = 'x'\n")
    with pytest.raises(ConfigError) as info:
        set_value("store.url", "y")
    assert info.value.path == str(project) and info.value.line == 2
    assert project.read_text() == "[store]\nurll = 'x'\n"


def _set_in(home: Path, text: str, key: str, value: str) -> str:
    project = home / "repo" / PROJECT_FILE
    project.write_text(text)
    set_value(key, value)
    return project.read_text()


def test_set_into_dotted_keys_and_inline_tables(home: Path) -> None:
    text = 'store.url = "x"  # dotted\n\n[hooks]\nstore = "y"\n'
    assert _set_in(home, text, "store.layout", "aiwiki") == (
        'store.url = "x"  # dotted\nstore.layout = "aiwiki"\n\n[hooks]\nstore = "y"\n'
    )
    inline = _set_in(home, 'store = {url = "x"}  # inline\n', "store.layout", "aiwiki")
    assert inline.startswith("store = {url = ") and inline.endswith("}  # inline\n")
    assert load_config().layout == "aiwiki"


def test_set_replaces_a_multiline_value_whole(home: Path) -> None:
    text = '[store]\nurl = """\nold"""  # c\nlayout = "aiwiki"\n'
    assert _set_in(home, text, "store.url", "new") == (
        '[store]\nurl = "new"  # c\nlayout = "aiwiki"\n'
    )


def test_set_keeps_hash_inside_strings(home: Path) -> None:
    text = '[store]\nurl = "a#b" # real comment\n'
    assert _set_in(home, text, "store.url", "c") == '[store]\nurl = "c" # real comment\n'


def test_parse_key_forms() -> None:
    assert parse_key("store.url") == ("store", "url")
    assert parse_key("storage_options.s3://my.bucket/x.profile") == (
        "storage_options",
        "s3://my.bucket/x",
        "profile",
    )
    assert parse_key('storage_options."s3://a.b".profile') == (
        "storage_options",
        "s3://a.b",
        "profile",
    )
    with pytest.raises(ConfigError):
        parse_key("storage_options.nodot")


# -- config set keeps every other byte, property-based (tomlkit) ------------------------------


_known = st.sampled_from(
    [
        ("store", "url", st.text(alphabet="abc/#'\" é", max_size=8).map("w".__add__)),
        ("store", "format", st.sampled_from(["aiwiki-v2", "aiwiki-v1", "basic-memory"])),
        ("hooks", "directive_kind", st.text(alphabet="AZaz #'\"é", max_size=8).map("K".__add__)),
        ("hooks", "deadline_ms", st.integers(1, 2**31)),
        ("limits", "max_note_bytes", st.integers(1, 2**40)),
    ]
)


def _toml_string(text: str) -> str:
    """A TOML basic string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_literal(value: object) -> str:
    return _toml_string(value) if isinstance(value, str) else repr(value)


@st.composite
def toml_files(draw: st.DrawFn) -> tuple[str, dict[str, dict[str, object]]]:
    settings_ = draw(st.lists(_known, max_size=4, unique_by=lambda k: (k[0], k[1])))
    data: dict[str, dict[str, object]] = {}
    for table, key, values in settings_:
        data.setdefault(table, {})[key] = draw(values)
    lines = []
    if draw(st.booleans()):
        lines.append("# a leading comment")
    for table, content in data.items():
        if draw(st.booleans()):
            lines.append("")
        lines.append(f"[{table}]" + draw(st.sampled_from(["", "  # t"])))
        for key, value in content.items():
            comment = draw(st.sampled_from(["", " # c", "   # has # hash"]))
            lines.append(f"{key} = {_toml_literal(value)}{comment}")
    text = "\n".join(lines) + ("\n" if lines and draw(st.booleans()) else "")
    return text, data


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(file=toml_files(), setting=_known, data=st.data())
def test_set_sets_one_key_and_keeps_every_other_line(
    home: Path,
    file: tuple[str, dict[str, dict[str, object]]],
    setting: tuple[str, str, st.SearchStrategy[object]],
    data: st.DataObject,
) -> None:
    import difflib
    import tomllib

    text, content = file
    table, key, values = setting
    value = data.draw(values)
    project = home / "repo" / PROJECT_FILE
    project.write_text(text, encoding="utf-8")
    set_value(f"{table}.{key}", str(value))
    new = project.read_text(encoding="utf-8")
    expected = {t: dict(c) for t, c in content.items()}
    expected.setdefault(table, {})[key] = value
    assert tomllib.loads(new) == expected
    old_lines = text.removesuffix("\n").split("\n") if text else []
    new_lines = new.removesuffix("\n").split("\n") if new else []
    diff = list(difflib.ndiff(old_lines, new_lines))
    assert len([x for x in diff if x.startswith("- ")]) <= 1
    assert len([x for x in diff if x.startswith("+ ")]) <= (1 if table in content else 3)
