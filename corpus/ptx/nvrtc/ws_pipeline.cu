// Warp-specialized producer/consumer pipeline over mbarriers in a cluster of 2 CTAs (compute_90),
// in the style of CUTLASS's Hopper kernels, written with libcu++'s cuda::ptx wrappers.
//
// Each CTA streams TILES tiles of TILE u32 words from global memory through a ring of STAGES
// shared-memory stages. Warp 0 is the producer: one lane waits on the stage's `empty` barrier,
// arms the stage's `full` barrier with the tile's byte count (mbarrier.arrive.expect_tx) and
// issues the bulk copy (cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes).
// Warps 1 and 2 are consumers: they wait on `full` (mbarrier.try_wait.parity), read the stage,
// and release it with one arrive per warp on `empty`. The producer starts waiting on `empty`
// with the opposite parity (phase 1 before the barrier's first phase has completed), which
// returns at once: the "immediately preceding phase" rule, as CUTLASS's PipelineTmaAsync does.
//
// Then the two CTAs of the cluster exchange their results through distributed shared memory:
// each pushes its `part` array into the peer's `recv` with a shared::cta -> shared::cluster
// bulk copy completing on the peer's `xchg` barrier (the peer's addresses from mapa), and,
// after cluster.sync() (barrier.cluster.arrive/wait), reads the peer's `part` directly through
// cluster.map_shared_rank (mapa.u64 + a generic load). A last cluster.sync() keeps every CTA's
// shared memory alive until the peer is done with it.
#include <cooperative_groups.h>
#include <cuda/ptx>
namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;

#define STAGES 3
#define TILE 64      // u32 words per stage: 256 bytes
#define TILES 8      // tiles per CTA: the ring wraps around twice and a bit
#define CONSUMERS 2  // consumer warps
#define BYTES (TILE * 4)

// The shared::cluster address of the same shared variable in CTA `rank` of the cluster.
static __device__ unsigned remote_smem(const void *local, unsigned rank)
{
    unsigned a = (unsigned)__cvta_generic_to_shared(local), d;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(rank));
    return d;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(32 * (1 + CONSUMERS))
    ws_pipeline(const unsigned *in, unsigned *out)
{
    __shared__ alignas(128) unsigned ring[STAGES][TILE];
    __shared__ alignas(16) unsigned part[TILE];
    __shared__ alignas(16) unsigned recv[TILE];
    __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES], xchg;

    cg::cluster_group cl = cg::this_cluster();
    const unsigned rank = cl.block_rank(), peer = rank ^ 1u;
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            ptx::mbarrier_init(&full[s], 1);
            ptx::mbarrier_init(&empty[s], CONSUMERS);
        }
        ptx::mbarrier_init(&xchg, 1);
        // The peer's bulk copy completes on xchg: make the initialisation visible cluster-wide.
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    cl.sync();

    const unsigned *src = in + blockIdx.x * (TILES * TILE);
    unsigned acc = 0;
    const unsigned t = threadIdx.x - 32;  // consumer thread index 0..63
    if (warp == 0) {
        if (lane == 0) {
            for (int i = 0; i < TILES; i++) {
                int s = i % STAGES;
                unsigned phase = (i / STAGES) & 1u;
                while (!ptx::mbarrier_try_wait_parity(&empty[s], phase ^ 1u)) {
                }
                ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                               &full[s], BYTES);
                ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, ring[s], src + i * TILE,
                                   BYTES, &full[s]);
            }
        }
    } else {
        acc = t * 0x9e3779b9u;
        for (int i = 0; i < TILES; i++) {
            int s = i % STAGES;
            unsigned phase = (i / STAGES) & 1u;
            while (!ptx::mbarrier_try_wait_parity(&full[s], phase)) {
            }
            unsigned x = ring[s][t], y = ring[s][(t * 5u + i) % TILE];
            acc = acc * 31u + (x ^ (y >> 3)) + (unsigned)i;
            __syncwarp();
            if (lane == 0)
                ptx::mbarrier_arrive(&empty[s]);
        }
        part[t] = acc;
        // part is read next by the bulk copy (async proxy): order the generic writes before it.
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();

    // Push part into the peer's recv; the peer's xchg barrier counts the bytes.
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &xchg,
                                       BYTES);
        asm volatile(
            "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, "
            "[%3];"
            :
            : "r"(remote_smem(recv, peer)), "r"((unsigned)__cvta_generic_to_shared(part)),
              "r"(BYTES), "r"(remote_smem(&xchg, peer))
            : "memory");
    }
    unsigned pushed = 0;
    if (warp != 0) {
        while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &xchg, 0)) {
        }
        pushed = recv[TILE - 1 - t];
    }

    cl.sync();
    unsigned direct = 0;
    if (warp != 0)
        direct = cl.map_shared_rank(part, peer)[(t + 7u) % TILE];
    cl.sync();

    if (warp != 0) {
        unsigned g = blockIdx.x * TILE + t;
        out[3 * g] = acc;
        out[3 * g + 1] = pushed;
        out[3 * g + 2] = direct ^ (rank << 31);
    }
}
