"""An ordered, chunked, streaming map over a process pool (for bulk operations).

:func:`ordered_map` applies a picklable top-level function to every item and
yields the results *in input order*, whatever order the workers finish in.
Items are consumed lazily and only a bounded number of chunks is in flight at
a time, so memory does not grow with the number of items.  With one job, or
fewer items than ``min_parallel``, it runs in this process and spawns nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

__all__ = ["default_jobs", "ordered_map"]

T = TypeVar("T")
R = TypeVar("R")
#: what :func:`ordered_map` runs each chunk inside (a store's ``batch``)
ChunkContext = Callable[[], contextlib.AbstractContextManager[Any]]

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
    """The results of a chunk up to the first failure, and that failure.

    ``around``: the whole chunk runs inside ``around()``, which has exited
    (for a store batch: every write is durable) before the results are returned.
    """
    done: list[R] = []
    try:
        with around() if around is not None else contextlib.nullcontext():
            for item in chunk:
                done.append(func(item))
    except Exception as exc:  # re-raised by the parent at the item's place in the order
        return done, exc
    return done, None


def ordered_map(
    func: Callable[[T], R],
    items: Iterable[T],
    *,
    jobs: int | None = None,
    chunk_size: int = 64,
    min_parallel: int = MIN_PARALLEL,
    around: ChunkContext | None = None,
) -> Iterator[R]:
    """Yield ``func(item)`` for every item, in input order, over ``jobs`` processes.

    Args:
        func: a top-level (picklable) function of one item; items and results
            must pickle too.
        items: any iterable; read lazily, a chunk at a time.
        jobs: worker processes (``None``: :func:`default_jobs`); 1 is serial.
        chunk_size: items per task sent to a worker.
        min_parallel: with fewer items than this, run serially in-process.
        around: a picklable factory of a context manager that each chunk of
            ``chunk_size`` items runs inside (in-process too, chunk by chunk),
            such as a store's ``batch``; a chunk's results are yielded only
            after its context has exited.

    An exception raised by ``func`` is raised here, at that item's place in
    the order (results before it have been yielded).

    Raises:
        ValueError: ``jobs`` or ``chunk_size`` is below 1.
    """
    workers = default_jobs() if jobs is None else jobs
    if workers < 1:
        raise ValueError(f"jobs must be at least 1, not {workers}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, not {chunk_size}")
    it = iter(items)
    if workers == 1:
        yield from _serial(func, it, chunk_size, around)
        return
    head = list(itertools.islice(it, max(min_parallel, chunk_size * workers)))
    if len(head) < min_parallel:
        yield from _serial(func, iter(head), chunk_size, around)
        return
    chunks = _chunks(itertools.chain(head, it), chunk_size, workers)
    del head
    in_flight = workers * 3
    # (imported here: concurrent.futures and multiprocessing cost a one-job run ~10 ms)
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[tuple[list[R], BaseException | None]]] = deque()
        for chunk in itertools.islice(chunks, in_flight):
            pending.append(pool.submit(_run_chunk, func, chunk, around))
        while pending:
            results, failure = pending.popleft().result()
            yield from results
            if failure is not None:
                for future in pending:
                    future.cancel()
                raise failure
            nxt = next(chunks, None)
            if nxt is not None:
                pending.append(pool.submit(_run_chunk, func, nxt, around))


def _serial(
    func: Callable[[T], R], it: Iterator[T], chunk_size: int, around: ChunkContext | None
) -> Iterator[R]:
    """:func:`ordered_map` in this process: item by item, or chunk by chunk inside ``around``."""
    if around is None:
        for item in it:
            yield func(item)
        return
    while chunk := list(itertools.islice(it, chunk_size)):
        results, failure = _run_chunk(func, chunk, around)
        yield from results
        if failure is not None:
            raise failure


def _chunks(it: Iterator[T], size: int, workers: int) -> Iterator[list[T]]:
    """Chunks of ``size`` items, and smaller ones at the end of the input.

    A lookahead of two chunks per worker tells when the input is about to
    end; what is left then goes out in ``2 * workers`` equal chunks, so that
    no worker is left with a whole chunk while the others wait.
    """
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
