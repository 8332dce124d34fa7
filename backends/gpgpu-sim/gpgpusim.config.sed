# Turns GPGPU-Sim's tested SM86_RTX3070 config into the functional one the adapter runs with
# (applied by build.sh to configs/tested-cfgs/SM86_RTX3070/gpgpusim.config).
# Functional simulation: no timing model (the adapter also sets PTX_SIM_MODE_FUNC=1).
s/^-gpgpu_ptx_sim_mode .*/-gpgpu_ptx_sim_mode 1/
# No per-line statistics file in the scratch directory.
s/^-enable_ptx_file_line_stats .*/-enable_ptx_file_line_stats 0/
# The power model stays off (it is off in this config; stated so that a source whose config
# turns it on still runs).
s/^-power_simulation_enabled .*/-power_simulation_enabled 0/
# One SM and one memory channel: functional simulation runs the CTAs one after another whatever
# the machine, but GPGPU-Sim builds the whole timing model at start-up anyway, and building 46 SMs
# and 16 channels is most of a launch's cost (about 0.15 s of CPU against 0.025 s with one of
# each). The per-SM limits that decide what a CTA may use (threads, registers, shared memory) are
# the RTX 3070's, unchanged. Memory-partition hashing (IPOLY) needs a power-of-two channel count
# above one: plain indexing instead. build.sh sizes the interconnect to match (k = 1 + 1 x 2).
s/^-gpgpu_n_clusters .*/-gpgpu_n_clusters 1/
s/^-gpgpu_n_cores_per_cluster .*/-gpgpu_n_cores_per_cluster 1/
s/^-gpgpu_n_mem .*/-gpgpu_n_mem 1/
s/^-gpgpu_n_sub_partition_per_mchannel .*/-gpgpu_n_sub_partition_per_mchannel 2/
s/^-gpgpu_memory_partition_indexing .*/-gpgpu_memory_partition_indexing 0/
