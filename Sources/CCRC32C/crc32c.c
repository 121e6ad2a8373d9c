#include "CCRC32C.h"

#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)

#include <cpuid.h>
#include <nmmintrin.h>
#include <pthread.h>

int livelog_crc32c_hardware_available(void) {
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  return (ecx & bit_SSE4_2) != 0;
}

// Long inputs run as three independent chains, since one `crc32` instruction waits for the one
// before it (a latency of three cycles, a throughput of one per cycle): each stride of
// 3 * kLane bytes is three lanes, the first continuing the checksum and the others starting
// from 0, joined by shifting the earlier lanes' registers over the bytes that follow them.
// Feeding n zero bytes to a register is a linear map; kShift holds it for kLane and 2 * kLane
// bytes, a table per byte of the register.
enum { kLane = 64 };
static uint32_t kShift[2][4][256];
static pthread_once_t kShiftOnce = PTHREAD_ONCE_INIT;

// The register after `count` zero bytes, one bit at a time (reflected polynomial 0x82F63B78).
static uint32_t livelog_crc32c_zeros(uint32_t state, size_t count) {
  for (size_t bit = 0; bit < 8 * count; bit++) state = (state >> 1) ^ (0x82F63B78u & (0u - (state & 1u)));
  return state;
}

static void livelog_crc32c_make_shifts(void) {
  for (int table = 0; table < 2; table++) {
    uint32_t basis[32];
    for (int bit = 0; bit < 32; bit++) basis[bit] = livelog_crc32c_zeros(1u << bit, (size_t)kLane * (table + 1));
    for (int byte = 0; byte < 4; byte++) {
      for (int value = 0; value < 256; value++) {
        uint32_t shifted = 0;
        for (int bit = 0; bit < 8; bit++) {
          if (value & (1 << bit)) shifted ^= basis[8 * byte + bit];
        }
        kShift[table][byte][value] = shifted;
      }
    }
  }
}

static inline uint32_t livelog_crc32c_shift(int table, uint32_t state) {
  return kShift[table][0][state & 0xFF] ^ kShift[table][1][(state >> 8) & 0xFF] ^
         kShift[table][2][(state >> 16) & 0xFF] ^ kShift[table][3][state >> 24];
}

// Only this function is compiled for SSE4.2; the caller checks the processor first.
__attribute__((target("sse4.2"))) uint32_t livelog_crc32c_hardware(uint32_t crc, const void *bytes,
                                                                     size_t count) {
  const unsigned char *p = (const unsigned char *)bytes;
  uint64_t state = (uint32_t)~crc;
  if (count >= 3 * kLane) {
    pthread_once(&kShiftOnce, livelog_crc32c_make_shifts);
    while (count >= 3 * kLane) {
      uint64_t second = 0, third = 0;
      for (int offset = 0; offset < kLane; offset += 8) {
        uint64_t a, b, c;
        memcpy(&a, p + offset, 8);
        memcpy(&b, p + kLane + offset, 8);
        memcpy(&c, p + 2 * kLane + offset, 8);
        state = _mm_crc32_u64(state, a);
        second = _mm_crc32_u64(second, b);
        third = _mm_crc32_u64(third, c);
      }
      state = livelog_crc32c_shift(1, (uint32_t)state) ^ livelog_crc32c_shift(0, (uint32_t)second) ^
              (uint32_t)third;
      p += 3 * kLane;
      count -= 3 * kLane;
    }
  }
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
