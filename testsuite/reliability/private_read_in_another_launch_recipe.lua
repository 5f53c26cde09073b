reschedule("i")
tile_by_index({"t1_"}, {64}, {l1_control="t1_t1_"}, {"t0_", "t1_t1_", "t1_"})
cudaize("kernel_rescheduled", {}, {block={"t1_t1_"}, thread={"t1_"}})
