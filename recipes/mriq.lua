-- MRI-Q (seed 004, Fig. 6.10): one thread per voxel; the k-space samples are shared by
-- all threads and staged in shared memory tile by tile; each thread's voxel and its Q
-- values stay in registers.
TI = param("TI", {64, 128, 256}, 128)
TK = param("TK", {64, 128, 256}, 128)
tile_by_index({"i", "k"}, {TI, TK}, {l1_control="ii", l2_control="kk"}, {"ii", "kk", "i", "k"})
cudaize("mriq_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_shared("tx", "kx", 0)
copy_to_shared("tx", "ky", 0)
copy_to_shared("tx", "kz", 0)
copy_to_shared("tx", "phiMag", 0)
copy_to_registers("kk", "x")
copy_to_registers("kk", "y")
copy_to_registers("kk", "z")
copy_to_registers("kk", "Qr")
copy_to_registers("kk", "Qi")
