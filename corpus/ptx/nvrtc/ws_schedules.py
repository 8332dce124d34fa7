#!/usr/bin/env python3
"""Schedule check for ws_pipeline.cu and ws_multicast.cu (not part of regen.py): their C twins
assume that every consumer read of a ring stage sees the tile the program order says (in
ws_multicast: both halves, one from each CTA's multicast), and that ws_pipeline's bulk-copy
push lands the peer's finished `part`, whatever the interleaving of the warps and of the
asynchronous copies. This runs each kernel's synchronisation protocol at the level of its
mbarrier operations under many random schedules and checks exactly that, plus that no schedule
deadlocks, that no copy is still in flight when the CTAs exit (after the last cluster.sync), and
that no arrive-on starts a phase before a wait has observed the previous one (PTX ISA 8.7
§9.7.13.15.4, L18456).

mbarrier model (PTX ISA 8.7 §9.7.13.15): a phase completes when the pending arrival count and
the tx-count are both zero (L18486-18490); expect-tx raises the tx-count (L18466), complete-tx
lowers it (L18474) and may come first (the tx-count range is signed, L18430-18434);
try_wait.parity P is true when P is the parity of the immediately preceding phase (L19051-19053),
so P = 1 is true on a fresh barrier (CUTLASS's producer start state).

    python3 corpus/ptx/nvrtc/ws_schedules.py [SCHEDULES]     # default 3000 per kernel
"""
import random
import sys

STAGES, TILES, CONSUMERS, BYTES = 3, 8, 2, 256


class Mbarrier:
    def __init__(self, count):
        self.expected = self.pending = count
        self.phase, self.tx, self.observed = 0, 0, True

    def _maybe_complete(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.expected
            self.observed = False

    def arrive(self, expect_tx=0):
        assert self.observed, "arrive-on before the previous phase was observed"
        self.tx += expect_tx
        self.pending -= 1
        assert self.pending >= 0
        self._maybe_complete()

    def complete_tx(self, n):
        self.tx -= n
        self._maybe_complete()

    def try_wait_parity(self, p):
        done = p != (self.phase & 1)
        if done:
            self.observed = True
        return done


class Cta:
    def __init__(self, rank):
        self.rank = rank
        self.full = [Mbarrier(1) for _ in range(STAGES)]
        self.empty = [Mbarrier(CONSUMERS) for _ in range(STAGES)]
        self.xchg = Mbarrier(1)
        self.ring = [None] * STAGES      # which tile each stage holds
        self.recv = None                 # whose part recv holds
        self.part_done = 0               # consumer warps that wrote part (and fenced)


def run(rng):
    ctas = [Cta(0), Cta(1)]
    copies = []  # in flight: (cta, stage, tile) or ("push", from_rank)
    agents = []

    def producer(c):
        for i in range(TILES):
            s, ph = i % STAGES, (i // STAGES) & 1
            while not c.empty[s].try_wait_parity(ph ^ 1):
                yield
            c.full[s].arrive(BYTES)
            copies.append((c, s, i))
            yield
        # __syncthreads, then the push (thread 0 is the producer lane)
        while c.part_done < CONSUMERS:
            yield
        c.xchg.arrive(BYTES)
        copies.append(("push", c.rank))
        yield

    def consumer(c, w):
        for i in range(TILES):
            s, ph = i % STAGES, (i // STAGES) & 1
            while not c.full[s].try_wait_parity(ph):
                yield
            yield  # the reads happen some time after the wait
            assert c.ring[s] == (c.rank, i), (c.rank, w, i, c.ring[s])
            yield
            c.empty[s].arrive()
        c.part_done += 1
        while c.part_done < CONSUMERS:  # __syncthreads
            yield
        while not c.xchg.try_wait_parity(0):
            yield
        assert c.recv == 1 - c.rank

    def land(k):
        if k[0] == "push":
            dst = ctas[1 - k[1]]
            assert ctas[k[1]].part_done == CONSUMERS
            dst.recv = k[1]
            dst.xchg.complete_tx(BYTES)
        else:
            c, s, i = k
            c.ring[s] = (c.rank, i)
            c.full[s].complete_tx(BYTES)

    for c in ctas:
        agents.append(producer(c))
        for w in range(CONSUMERS):
            agents.append(consumer(c, w))
    return schedule(rng, agents, copies, land)


def schedule(rng, agents, copies, land):
    """Runs agents (generators) and lands in-flight copies in a random interleaving."""
    steps = 0
    while agents or copies:
        steps += 1
        assert steps < 100000, "deadlock"
        if copies and (not agents or rng.random() < 0.3):
            land(copies.pop(rng.randrange(len(copies))))
            continue
        a = rng.choice(agents)
        try:
            next(a)
        except StopIteration:
            agents.remove(a)
            if not agents:
                assert not copies, "a copy is still in flight when the CTAs exit"
    return steps


MC_STAGES, MC_TILES, CLUSTER = 2, 6, 2


def run_multicast(rng):
    """ws_multicast: each CTA's producer multicasts half of every tile into both CTAs; `full`
    expects the whole tile from the own producer's arrive.expect_tx; `empty` counts the
    consumer warps of both CTAs."""
    ctas = []
    for r in range(CLUSTER):
        c = Cta(r)
        c.full = [Mbarrier(1) for _ in range(MC_STAGES)]
        c.empty = [Mbarrier(CONSUMERS * CLUSTER) for _ in range(MC_STAGES)]
        c.ring = [[None] * CLUSTER for _ in range(MC_STAGES)]
        ctas.append(c)
    copies = []

    def producer(c):
        for i in range(MC_TILES):
            s, ph = i % MC_STAGES, (i // MC_STAGES) & 1
            while not c.empty[s].try_wait_parity(ph ^ 1):
                yield
            c.full[s].arrive(BYTES)
            # one write-and-signal per destination CTA, landing independently
            copies.extend((d, s, c.rank, i) for d in range(CLUSTER))
            yield

    def consumer(c, w):
        for i in range(MC_TILES):
            s, ph = i % MC_STAGES, (i // MC_STAGES) & 1
            while not c.full[s].try_wait_parity(ph):
                yield
            yield
            assert c.ring[s] == [i] * CLUSTER, (c.rank, w, i, c.ring[s])
            yield
            for d in range(CLUSTER):  # lane d arrives on CTA d's empty barrier
                ctas[d].empty[s].arrive()
                yield

    def land(k):
        d, s, half, i = k
        ctas[d].ring[s][half] = i
        ctas[d].full[s].complete_tx(BYTES // CLUSTER)

    agents = []
    for c in ctas:
        agents.append(producer(c))
        agents.extend(consumer(c, w) for w in range(CONSUMERS))
    return schedule(rng, agents, copies, land)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    for name, fn in (("ws_pipeline", run), ("ws_multicast", run_multicast)):
        rng = random.Random(20261126)
        total = sum(fn(rng) for _ in range(n))
        print(f"{name}: {n} random schedules ({total} steps): every read saw its tile, no "
              "deadlock, no copy in flight at exit, every phase observed before the next arrive")


if __name__ == "__main__":
    main()
