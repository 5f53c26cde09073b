-- gpucc-args: testsuite/deps/private_scalar_ranges.c
-- `w`'s two live ranges are private copies of one name: a serial kernel that runs both
-- nests declares it once, and the thread uses it for one range after the other.
cudaize("both_serial", {}, {})
print_code()
