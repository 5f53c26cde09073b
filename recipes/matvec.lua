-- Matrix-vector product (seed 004, section 5.7): one thread per row; A is read in
-- TI x TJ tiles through shared memory, in a coalesced order, and x tile by tile; each
-- thread's y stays in a register.
TI = param("TI", {32, 64, 128}, 32)
TJ = param("TJ", {16, 32, 64}, 32)
tile_by_index({"i", "j"}, {TI, TJ}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
cudaize("matvec_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_shared("tx", "A", -16)
copy_to_shared("tx", "x", 0)
copy_to_registers("jj", "y")
