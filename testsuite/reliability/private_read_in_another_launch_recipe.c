// gpucc-run: testsuite/reliability/private_read_in_another_launch.c --recipe testsuite/reliability/private_read_in_another_launch_recipe.lua
// gpucc-exit: 1
// gpucc-says: `t1` is set and read in kernel `kernel_rescheduled` by different threads or launches
// The recipe the ranking once chose for the nest of `private_read_in_another_launch.c`
// (this case runs that file): isl's order sets `t1` at one step of the host loop `t0_` and
// reads it at another.
