// kp_emu stub of <cuda_pipeline.h>: __pipeline_memcpy_async queues the copy in the thread's open group,
// __pipeline_commit closes the group, __pipeline_wait_prior(n) makes the copies of all but the n newest
// committed groups land (then, not before: a kernel that reads a stage it did not wait for reads what
// was there). Sizes 4, 8 or 16 bytes, aligned, the last zfill bytes zero, as the CUDA header asserts.
#pragma once
inline void __pipeline_memcpy_async(void* dst, const void* src, size_t size_and_align, size_t zfill = 0) {
  if (!(size_and_align == 4 || size_and_align == 8 || size_and_align == 16) || zfill > size_and_align ||
      (uintptr_t)dst % size_and_align || (zfill < size_and_align && (uintptr_t)src % size_and_align)) {
    std::fprintf(stderr, "kp_emu: __pipeline_memcpy_async of %zu bytes (zfill %zu) at %p <- %p: a size of 4, 8 or 16, "
                 "aligned to it\n", size_and_align, zfill, dst, src);
    std::exit(5);
  }
  kp_block->piped = true;
  kp_block->pipes[kp_tid].open.push_back({dst, src, size_and_align, zfill});
}
inline void __pipeline_commit() {
  KpPipe& p = kp_block->pipes[kp_tid];
  p.groups.push_back(std::move(p.open));
  p.open.clear();
}
inline void __pipeline_wait_prior(size_t prior) {
  KpPipe& p = kp_block->pipes[kp_tid];
  while (p.groups.size() > prior) {
    for (const KpCopy& c : p.groups.front()) {
      std::memcpy(c.dst, c.src, c.size - c.zfill);
      std::memset((char*)c.dst + (c.size - c.zfill), 0, c.zfill);
    }
    p.groups.pop_front();
  }
}
