-- A 6-D tensor contraction: blocks over a and b, threads over d (contiguous in C and B)
-- and c; the e and f reductions run in each thread on a register copy of its element
-- of C, with the block's slice of B staged in shared memory.
tile_by_index({"d"}, {32}, {l1_control="dd"}, {"a", "b", "dd", "c", "d", "e", "f"})
cudaize("contract_kernel", {}, {block={"a", "b"}, thread={"d", "c"}})
copy_to_shared("tx", "B", 0)
copy_to_registers("e", "C")
unroll_to_depth(1)
