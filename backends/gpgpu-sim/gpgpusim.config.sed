# Turns GPGPU-Sim's tested SM86_RTX3070 config into the functional one the adapter runs with
# (applied by build.sh to configs/tested-cfgs/SM86_RTX3070/gpgpusim.config).
# Functional simulation: no timing model (the adapter also sets PTX_SIM_MODE_FUNC=1).
s/^-gpgpu_ptx_sim_mode .*/-gpgpu_ptx_sim_mode 1/
# No per-line statistics file in the scratch directory.
s/^-enable_ptx_file_line_stats .*/-enable_ptx_file_line_stats 0/
# The power model stays off (it is off in this config; stated so that a source whose config
# turns it on still runs).
s/^-power_simulation_enabled .*/-power_simulation_enabled 0/
