// Warp-specialized pipeline with TMA-style multicast in a cluster of 2 CTAs (compute_90a), the
// pattern of CUTLASS's Hopper GEMMs where the CTAs of a cluster share an operand: both CTAs
// consume the same stream of TILES tiles (the cluster's slice of `in`), and each CTA's producer
// loads only its half of every tile and multicasts it into the same stage of both CTAs
// (cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster, ctaMask
// 0b11), signalling the `full` barrier at the same offset in each. So a CTA's `full` phase
// completes on its own producer's arrive.expect_tx of the whole tile plus two complete-tx of half
// a tile, one of them from the peer's copy (which may come first). Because the peer's producer
// writes into this CTA's stages too, a stage is free only when the consumers of both CTAs are
// done with it: every consumer warp arrives on the `empty` barrier of both CTAs (expected count
// 2 CTAs x 2 warps), the remote one through mapa.shared::cluster and
// mbarrier.arrive.release.cluster.shared::cluster (CUTLASS's ClusterBarrier::arrive(cta_id)).
// Waits are acquire.cluster. A last cluster.sync() keeps each CTA's shared memory alive until
// the peer can no longer write to it or arrive on its barriers.
#include <cooperative_groups.h>
#include <cuda/ptx>
namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;

#define STAGES 2
#define TILE 64      // u32 words per stage: 256 bytes, two halves of 128
#define TILES 6      // tiles per cluster
#define CONSUMERS 2  // consumer warps per CTA
#define CLUSTER 2
#define BYTES (TILE * 4)
#define HALF (TILE / CLUSTER)

// Arrive on the mbarrier at the same offset as `bar` in CTA `rank` of the cluster.
static __device__ void arrive_cluster(uint64_t *bar, unsigned rank)
{
    unsigned a = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile("{\n\t.reg .b32 remote;\n\t"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n\t}"
                 :
                 : "r"(a), "r"(rank)
                 : "memory");
}

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(32 * (1 + CONSUMERS))
    ws_multicast(const unsigned *in, unsigned *out)
{
    __shared__ alignas(128) unsigned ring[STAGES][TILE];
    __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];

    cg::cluster_group cl = cg::this_cluster();
    const unsigned rank = cl.block_rank();
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            ptx::mbarrier_init(&full[s], 1);
            ptx::mbarrier_init(&empty[s], CONSUMERS * CLUSTER);
        }
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    cl.sync();

    const unsigned *src = in + (blockIdx.x / CLUSTER) * (TILES * TILE);
    if (warp == 0) {
        if (lane == 0) {
            for (int i = 0; i < TILES; i++) {
                int s = i % STAGES;
                unsigned phase = (i / STAGES) & 1u;
                while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster,
                                                      &empty[s], phase ^ 1u)) {
                }
                ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster,
                                               ptx::space_shared, &full[s], BYTES);
                ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, &ring[s][rank * HALF],
                                   src + i * TILE + rank * HALF, BYTES / CLUSTER, &full[s],
                                   (uint16_t)((1u << CLUSTER) - 1));
            }
        }
    } else {
        const unsigned t = threadIdx.x - 32;  // 0..63
        unsigned acc = (t + TILE * rank) * 0x9e3779b9u;
        for (int i = 0; i < TILES; i++) {
            int s = i % STAGES;
            unsigned phase = (i / STAGES) & 1u;
            while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &full[s],
                                                  phase)) {
            }
            unsigned x = ring[s][t], y = ring[s][(t * 7u + 3u * i + rank) % TILE];
            acc = (acc ^ x) * 0x01000193u + (y >> (i + 1));
            __syncwarp();
            if (lane < CLUSTER)
                arrive_cluster(&empty[s], lane);
        }
        out[blockIdx.x * TILE + t] = acc;
    }
    cl.sync();
}
