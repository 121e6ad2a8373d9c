#include "CCRC32C.h"

#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)

#include <cpuid.h>
#include <nmmintrin.h>

int livelog_crc32c_hardware_available(void) {
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  return (ecx & bit_SSE4_2) != 0;
}

// Only this function is compiled for SSE4.2; the caller checks the processor first.
__attribute__((target("sse4.2"))) uint32_t livelog_crc32c_hardware(uint32_t crc, const void *bytes,
                                                                     size_t count) {
  const unsigned char *p = (const unsigned char *)bytes;
  uint64_t state = (uint32_t)~crc;
  while (count >= 8) {
    uint64_t word;
    memcpy(&word, p, 8);  // unaligned; x86 is little-endian as the checksum's definition
    state = _mm_crc32_u64(state, word);
    p += 8;
    count -= 8;
  }
  uint32_t low = (uint32_t)state;
  while (count > 0) {
    low = _mm_crc32_u8(low, *p);
    p += 1;
    count -= 1;
  }
  return ~low;
}

#elif defined(__aarch64__) || defined(_M_ARM64)

#include <arm_acle.h>
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

int livelog_crc32c_hardware_available(void) {
#if defined(__APPLE__)
  return 1;  // every arm64 processor Apple ships has the CRC extension
#elif defined(__linux__)
  return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#else
  return 0;
#endif
}

__attribute__((target("crc"))) uint32_t livelog_crc32c_hardware(uint32_t crc, const void *bytes,
                                                                  size_t count) {
  const unsigned char *p = (const unsigned char *)bytes;
  uint32_t state = ~crc;
  while (count >= 8) {
    uint64_t word;
    memcpy(&word, p, 8);  // arm64 runs little-endian on every platform LiveLog supports
    state = __crc32cd(state, word);
    p += 8;
    count -= 8;
  }
  while (count > 0) {
    state = __crc32cb(state, *p);
    p += 1;
    count -= 1;
  }
  return ~state;
}


#else

int livelog_crc32c_hardware_available(void) { return 0; }

uint32_t livelog_crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
  (void)bytes;
  (void)count;
  return crc;  // never called: the processor check above says no
}

#endif
