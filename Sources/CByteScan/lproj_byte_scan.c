#include "lproj_byte_scan.h"

#if defined(__x86_64__)
#include <immintrin.h>

int lproj_scan_avx2;

__attribute__((constructor)) static void set_up(void) {
    __builtin_cpu_init();
    lproj_scan_avx2 = __builtin_cpu_supports("avx2");
}

// The UTF-8 check is Keiser and Lemire's ("Validating UTF-8 in less than one
// instruction per byte", 2021): each byte and the one before it are looked
// up by their nibbles in three 16-entry tables whose entries are sets of the
// errors that pair could be; a pair is wrong where the three sets meet. A
// third or fourth byte of a sequence (two or three bytes after a lead of
// E0+ or F0+) must be a continuation whose pair with the byte before is
// "two continuations", which is the one error the tables' meeting then
// cancels.
enum {
    TOO_SHORT = 1 << 0,  // a lead not followed by a continuation
    TOO_LONG = 1 << 1,   // a continuation after ASCII
    OVERLONG_3 = 1 << 2, // E0 80..9F
    TOO_LARGE = 1 << 3,  // F4 90..BF, or F5 and above
    SURROGATE = 1 << 4,  // ED A0..BF
    OVERLONG_2 = 1 << 5, // C0 or C1
    TOO_LARGE_1000 = 1 << 6,
    OVERLONG_4 = 1 << 6, // F0 80..8F
    TWO_CONTS = 1 << 7,  // a continuation after a continuation
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS,
};

__attribute__((target("avx2")))
static inline __m256i table16(int e0, int e1, int e2, int e3, int e4, int e5, int e6, int e7,
                              int e8, int e9, int e10, int e11, int e12, int e13, int e14, int e15) {
    const char lane[16] = {(char)e0, (char)e1, (char)e2, (char)e3, (char)e4, (char)e5, (char)e6, (char)e7,
                           (char)e8, (char)e9, (char)e10, (char)e11, (char)e12, (char)e13, (char)e14, (char)e15};
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)lane));
}

/// The lanes of `block` (each with the three bytes before it) that are not valid UTF-8, as bits.
__attribute__((target("avx2")))
static inline uint32_t invalid_lanes(__m256i block, __m256i back1, __m256i back2, __m256i back3) {
    const __m256i low_nibble = _mm256_set1_epi8(0x0F);
    const __m256i back1_high_table = table16(
        TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
        TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
        TOO_SHORT | OVERLONG_2,
        TOO_SHORT,
        TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4);
    const __m256i back1_low_table = table16(
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
        CARRY | OVERLONG_2,
        CARRY, CARRY,
        CARRY | TOO_LARGE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000);
    const __m256i block_high_table = table16(
        TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT);
    // Shifting 16-bit lanes carries the next byte's bits in: masked off.
    __m256i back1_high = _mm256_and_si256(_mm256_srli_epi16(back1, 4), low_nibble);
    __m256i back1_low = _mm256_and_si256(back1, low_nibble);
    __m256i block_high = _mm256_and_si256(_mm256_srli_epi16(block, 4), low_nibble);
    __m256i special = _mm256_and_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(back1_high_table, back1_high), _mm256_shuffle_epi8(back1_low_table, back1_low)),
        _mm256_shuffle_epi8(block_high_table, block_high));
    // 0x80 and above exactly where two bytes back is E0+ or three back is F0+.
    __m256i third = _mm256_subs_epu8(back2, _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(back3, _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must_continue = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    __m256i error = _mm256_xor_si256(special, must_continue);
    return ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(error, _mm256_setzero_si256()));
}

__attribute__((target("avx2")))
lproj_scan_result lproj_scan_copy(const uint8_t *source, long start, long count, uint8_t *destination,
                                  uint8_t quote, int validating, int doubtful) {
    const __m256i quotes = _mm256_set1_epi8((char)quote), backslashes = _mm256_set1_epi8('\\');
    long position = start, written = 0;
    while (position + 32 <= count) {
        __m256i block = _mm256_loadu_si256((const __m256i *)(source + position));
        _mm256_storeu_si256((__m256i *)(destination + written), block);
        uint32_t stops = (uint32_t)_mm256_movemask_epi8(
            _mm256_or_si256(_mm256_cmpeq_epi8(block, quotes), _mm256_cmpeq_epi8(block, backslashes)));
        if (validating && !doubtful) {
            __m256i back3 = _mm256_loadu_si256((const __m256i *)(source + position - 3));
            if (_mm256_movemask_epi8(_mm256_or_si256(block, back3)) != 0) {
                uint32_t invalid = invalid_lanes(block, _mm256_loadu_si256((const __m256i *)(source + position - 1)),
                                                 _mm256_loadu_si256((const __m256i *)(source + position - 2)), back3);
                // Where the copy stops, the lanes up to the stop count (a sequence cut short by it included).
                if (stops != 0) invalid &= (uint32_t)(((uint64_t)2 << __builtin_ctz(stops)) - 1);
                doubtful = invalid != 0;
            }
        }
        if (stops == 0) {
            position += 32;
            written += 32;
            continue;
        }
        long stop = position + __builtin_ctz(stops);
        written += stop - position;
        if (source[stop] == quote) return (lproj_scan_result){stop, written, LPROJ_SCAN_QUOTE, doubtful};
        uint8_t byte = stop + 1 < count ? lproj_escaped_byte(source[stop + 1]) : 0xFF;
        if (byte == 0xFF) return (lproj_scan_result){stop, written, LPROJ_SCAN_ESCAPE, doubtful};
        destination[written++] = byte;
        position = stop + 2;
    }
    return (lproj_scan_result){position, written, LPROJ_SCAN_NOT_STOPPED, doubtful};
}

#else

int lproj_scan_avx2 = 0;

lproj_scan_result lproj_scan_copy(const uint8_t *source, long start, long count, uint8_t *destination,
                                  uint8_t quote, int validating, int doubtful) {
    (void)source; (void)count; (void)destination; (void)quote; (void)validating;
    return (lproj_scan_result){start, 0, LPROJ_SCAN_NOT_STOPPED, doubtful};
}

#endif
