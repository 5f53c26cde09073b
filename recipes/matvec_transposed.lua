-- Transposed matrix-vector product (seed 004, section 6.2.2): one thread per column,
-- so consecutive threads read consecutive elements of a row of A (coalesced); x is
-- staged in shared memory tile by tile, y kept in a register.
TJ = param("TJ", {32, 64, 128, 256}, 128)
TI = param("TI", {32, 64, 128}, 64)
tile_by_index({"j", "i"}, {TJ, TI}, {l1_control="jj", l2_control="ii"}, {"jj", "ii", "j", "i"})
cudaize("matvec_transposed_kernel", {}, {block={"jj"}, thread={"j"}})
copy_to_shared("tx", "x", 0)
copy_to_registers("ii", "y")
