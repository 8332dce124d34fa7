// Cooperative groups: thread_block, tiled_partition<32> and <8>, cg::reduce (plus, greater,
// bit_xor), cg::inclusive_scan / exclusive_scan, tile shuffles, ballot/any/all, group
// queries, coalesced_groups from cg::binary_partition and cg::labeled_partition (size, rank,
// shfl, reduce, ballot; formed by the whole warp, so their masks do not depend on how the
// hardware reconverges, unlike coalesced_threads() in a divergent branch), a float sum down a
// tile with shfl_down (the order fixed by the code), and cg::invoke_one (elect.sync on
// compute_90) doing an order-independent count.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

extern "C" __global__ void coop_groups(const int *in, const float *fin, int *out, float *fout,
                                       unsigned *counts)
{
    cg::thread_block block = cg::this_thread_block();
    unsigned i = block.group_index().x * block.num_threads() + block.thread_rank();
    int v = in[i];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
    int *o = out + 20 * i;
    o[0] = cg::reduce(warp, v, cg::plus<int>());
    o[1] = cg::reduce(tile8, v, cg::greater<int>());
    o[2] = (int)cg::reduce(tile8, (unsigned)v, cg::bit_xor<unsigned>());
    o[3] = cg::inclusive_scan(tile8, v);
    o[4] = cg::exclusive_scan(warp, v);
    o[5] = warp.shfl_down(v, 3);
    o[6] = tile8.shfl(v, (tile8.thread_rank() + 3) % 8);
    o[7] = (int)warp.ballot(v & 1);
    o[8] = tile8.any(v < -900) + 2 * tile8.all(v > -900);
    o[9] = (int)(warp.meta_group_rank() * 100 + tile8.meta_group_rank() * 10 +
                 tile8.thread_rank());
    o[10] = (int)(block.num_threads() + tile8.meta_group_size() * 1000);
    cg::coalesced_group g = cg::binary_partition(warp, v % 3 == 0);
    o[11] = (int)g.size();
    o[12] = (int)g.thread_rank();
    o[13] = g.shfl(v, 0);
    o[14] = cg::reduce(g, v, cg::plus<int>());
    o[15] = (int)g.ballot(v > 0);
    cg::coalesced_group h = cg::labeled_partition(warp, v & 3);
    o[17] = (int)(h.size() * 100 + h.thread_rank());
    o[18] = cg::reduce(h, v, cg::less<int>());
    o[19] = h.shfl(v, h.size() - 1);
    float f = fin[i];
    for (unsigned off = 4; off > 0; off /= 2)
        f += tile8.shfl_down(f, off);
    if (tile8.thread_rank() == 0)
        fout[i / 8] = f;
    cg::invoke_one(warp, [&] { atomicAdd(&counts[warp.meta_group_rank()], 1u); });
    cg::invoke_one(g, [&] { atomicAdd(&counts[8 + warp.meta_group_rank()], g.size()); });
    block.sync();
    o[16] = (int)warp.thread_rank();
}
