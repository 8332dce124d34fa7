// Thread block clusters (compute_90): __cluster_dims__ (.reqnctapercluster, .explicitcluster),
// cluster.sync() and the split barrier_arrive()/barrier_wait() (barrier.cluster), cluster
// queries (%cluster_ctarank, %cluster_nctarank, %cluster_ctaid, %cluster_nctaid, %clusterid),
// and distributed shared memory: map_shared_rank (mapa) reads of another block's shared array,
// and atomicAdd into block 0's shared counter from every block of the cluster.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define T 128

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_dsmem(const unsigned *in,
                                                                   unsigned *out,
                                                                   unsigned *sums,
                                                                   unsigned *counts)
{
    __shared__ unsigned part[T];
    __shared__ unsigned cnt;
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank(), t = threadIdx.x;
    if (t == 0)
        cnt = 0;
    part[t] = in[blockIdx.x * T + t];
    cl.sync();
    unsigned *peer = cl.map_shared_rank(part, (r + 1) % cl.num_blocks());
    unsigned v = peer[T - 1 - t];
    atomicAdd(cl.map_shared_rank(&cnt, 0), v & 0xffu);
    if (r == 0) {
        unsigned s = 0;
        for (unsigned b = 0; b < cl.num_blocks(); b++)
            s = s * 7u + cl.map_shared_rank(part, b)[t];
        sums[(blockIdx.x / cl.num_blocks()) * T + t] = s;
    }
    cl.sync();
    if (r == 0 && t == 0)
        counts[blockIdx.x / cl.num_blocks()] = cnt;
    out[blockIdx.x * T + t] = v ^ (r << 24) ^ (cl.num_blocks() << 28);
}

extern "C" __global__ void __cluster_dims__(2, 2, 1) cluster_2d(unsigned *out)
{
    __shared__ unsigned tag[64];
    cg::cluster_group cl = cg::this_cluster();
    unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
    dim3 bi = cl.block_index(), db = cl.dim_blocks();
    tag[t] = (blockIdx.y * gridDim.x + blockIdx.x) * 1000 + t;
    cl.barrier_arrive();
    unsigned mine = bi.x | bi.y << 4 | cl.block_rank() << 8 | db.x << 12 | db.y << 16 |
                    cl.num_threads() << 20;
    cl.barrier_wait();
    unsigned other = cl.map_shared_rank(tag, cl.block_rank() ^ 3u)[63 - t];
    cl.sync();
    unsigned g = (blockIdx.y * gridDim.x + blockIdx.x) * 64 + t;
    out[2 * g] = mine;
    out[2 * g + 1] = other + cl.thread_rank() * 100000u;
}
