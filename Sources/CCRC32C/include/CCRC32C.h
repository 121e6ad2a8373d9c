// CRC-32C (Castagnoli) with the processor's own instructions: SSE4.2 `crc32` on x86_64, the
// ARMv8 CRC extension on arm64. LiveLog's Swift code keeps a software path for every other case.
#ifndef LIVELOG_CCRC32C_H
#define LIVELOG_CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this processor runs `livelog_crc32c_hardware`, 0 otherwise (then it must not be called).
int livelog_crc32c_hardware_available(void);

/// The CRC-32C of `count` bytes at `bytes`, continuing from `crc` (the checksum of what came
/// before, or 0), as the software path computes it: the register starts as `~crc` and the result
/// is its complement.
uint32_t livelog_crc32c_hardware(uint32_t crc, const void *bytes, size_t count);

#endif
