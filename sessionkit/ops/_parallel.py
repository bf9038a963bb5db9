"""An ordered, chunked, streaming map over a process pool (for bulk operations).

Results come in input order; items are read lazily with a bounded number of chunks in
flight, so memory does not grow with the input.  With one job, or fewer items than
``min_parallel``, it runs in this process and spawns nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import deque

TYPE_CHECKING = False  # (typing is not imported at run time: lint's start-up pays for it)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from concurrent.futures import Future
    from typing import Any, TypeVar

    T = TypeVar("T")
    R = TypeVar("R")
    #: what :func:`ordered_map` runs each chunk inside (a store's ``batch``)
    ChunkContext = Callable[[], contextlib.AbstractContextManager[Any]]
    Runner = Callable[[Any, list[Any], ChunkContext | None], tuple[list[Any], BaseException | None]]

__all__ = ["WORKER_GONE", "default_jobs", "ordered_map", "ordered_map_chunks"]

#: fewer items than this run in-process: a pool costs more than it saves
MIN_PARALLEL = 64


def default_jobs() -> int:
    """The number of cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _run_chunk(
    func: Callable[[T], R], chunk: list[T], around: ChunkContext | None = None
) -> tuple[list[R], BaseException | None]:
    """The results of a chunk up to the first failure, and that failure."""
    done: list[R] = []
    try:
        with around() if around is not None else contextlib.nullcontext():
            for item in chunk:
                done.append(func(item))
    except Exception as exc:  # re-raised by the parent at the item's place in the order
        return done, exc
    return done, None


def _run_whole(
    func: Callable[[list[T]], list[R]], chunk: list[T], around: ChunkContext | None = None
) -> tuple[list[R], BaseException | None]:
    """:func:`_run_chunk` for a function of the whole chunk (all its results, or none)."""
    try:
        with around() if around is not None else contextlib.nullcontext():
            done = list(func(chunk))
    except Exception as exc:
        return [], exc
    if len(done) != len(chunk):
        return [], ValueError(f"{len(done)} results for a chunk of {len(chunk)} items")
    return done, None


def ordered_map(
    func: Callable[[T], R],
    items: Iterable[T],
    *,
    jobs: int | None = None,
    chunk_size: int = 64,
    min_parallel: int = MIN_PARALLEL,
    around: ChunkContext | None = None,
    in_flight: int = 3,
) -> Iterator[R]:
    """Yield ``func(item)`` for every item, in input order, over ``jobs`` processes."""
    return _ordered(_run_chunk, func, items, jobs, chunk_size, min_parallel, around, in_flight)


def ordered_map_chunks(
    func: Callable[[list[T]], list[R]],
    items: Iterable[T],
    *,
    jobs: int | None = None,
    chunk_size: int = 64,
    min_parallel: int = MIN_PARALLEL,
    around: ChunkContext | None = None,
    in_flight: int = 3,
) -> Iterator[R]:
    """:func:`ordered_map` for a function of a whole chunk: ``func(chunk)`` returns one result per
    item, in order (so a chunk's work can be done together, such as a store's
    :meth:`~sessionkit.backends.Store.update_texts`)."""
    return _ordered(_run_whole, func, items, jobs, chunk_size, min_parallel, around, in_flight)


def _ordered(
    run: Runner,
    func: Any,
    items: Iterable[T],
    jobs: int | None,
    chunk_size: int,
    min_parallel: int,
    around: ChunkContext | None,
    in_flight: int,
) -> Iterator[Any]:
    workers = default_jobs() if jobs is None else jobs
    for name, value in (("jobs", workers), ("chunk_size", chunk_size), ("in_flight", in_flight)):
        if value < 1:
            raise ValueError(f"{name} must be at least 1, not {value}")
    source = _Input(iter(items))
    mapped = _mapped(run, func, source, workers, chunk_size, min_parallel, around, in_flight)
    return _then_failure(mapped, source)


def _then_failure(results: Iterator[Any], source: _Input) -> Iterator[Any]:
    """``results``, then the input's own error (after every item before it)."""
    yield from results
    if source.failure is not None:
        raise source.failure


class _Input:
    """The input, read lazily, that ends where it raises: the error is kept in
    ``failure`` for the caller to raise once the items before it are done."""

    def __init__(self, it: Iterator[T]) -> None:
        self._it = it
        self.failure: Exception | None = None

    def __iter__(self) -> _Input:
        return self

    def __next__(self) -> Any:
        if self.failure is not None:
            raise StopIteration
        try:
            return next(self._it)
        except StopIteration:
            raise
        except Exception as exc:
            self.failure = exc
            raise StopIteration from None


#: what :func:`ordered_map` raises when a worker process dies (killed, out of memory)
WORKER_GONE = "a worker process ended before it answered"


def _mapped(
    run: Runner,
    func: Any,
    it: Iterator[T],
    workers: int,
    chunk_size: int,
    min_parallel: int,
    around: ChunkContext | None,
    in_flight: int,
) -> Iterator[Any]:
    if workers == 1:
        yield from _serial(run, func, it, chunk_size, around)
        return
    head = list(itertools.islice(it, max(min_parallel, chunk_size * workers)))
    if len(head) < min_parallel:
        yield from _serial(run, func, iter(head), chunk_size, around)
        return
    chunks = _chunks(itertools.chain(head, it), chunk_size, workers)
    del head
    # (imported here: concurrent.futures and multiprocessing cost a one-job run ~10 ms)
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=workers) as pool:
        try:
            pending: deque[Future[tuple[list[Any], BaseException | None]]] = deque()
            for chunk in itertools.islice(chunks, workers * in_flight):
                pending.append(pool.submit(run, func, chunk, around))
            while pending:
                results, failure = pending.popleft().result()
                yield from results
                if failure is not None:
                    for future in pending:
                        future.cancel()
                    raise failure
                nxt = next(chunks, None)
                if nxt is not None:
                    pending.append(pool.submit(run, func, nxt, around))
        except BrokenProcessPool as exc:  # (an OSError: the command reports it in a line)
            raise OSError(WORKER_GONE) from exc


def _serial(
    run: Runner, func: Any, it: Iterator[T], chunk_size: int, around: ChunkContext | None
) -> Iterator[Any]:
    """:func:`ordered_map` in this process: item by item, or chunk by chunk inside
    ``around`` (or for a function of whole chunks)."""
    if around is None and run is _run_chunk:
        for item in it:
            yield func(item)
        return
    while chunk := list(itertools.islice(it, chunk_size)):
        results, failure = run(func, chunk, around)
        yield from results
        if failure is not None:
            raise failure


def _chunks(it: Iterator[T], size: int, workers: int) -> Iterator[list[T]]:
    """Chunks of ``size`` items, and smaller ones at the end of the input."""
    window = size * workers * 2
    ahead: deque[T] = deque(itertools.islice(it, window))
    while ahead:
        if len(ahead) < window:  # the input has ended: share out the rest
            share = -(-len(ahead) // (2 * workers))
            while ahead:
                yield [ahead.popleft() for _ in range(min(share, len(ahead)))]
            return
        yield [ahead.popleft() for _ in range(size)]
        ahead.extend(itertools.islice(it, size))
