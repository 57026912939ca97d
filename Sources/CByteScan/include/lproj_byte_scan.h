// A .strings parser's inner loop, 32 bytes a step with AVX2 where the
// processor has it: Swift's SIMD types compile for the x86-64 baseline
// (SSE2: 16 bytes, no byte shuffle), and the UTF-8 check below is three
// table lookups a step with a byte shuffle.
#ifndef LPROJ_BYTE_SCAN_H
#define LPROJ_BYTE_SCAN_H

#include <stdint.h>

/// How a scan ended.
enum {
    /// Fewer than 32 bytes were left: the caller goes on from `offset`.
    LPROJ_SCAN_NOT_STOPPED = 0,
    /// At the closing quote, at `offset`.
    LPROJ_SCAN_QUOTE = 1,
    /// At a backslash whose escape the caller writes (where
    /// lproj_escaped_byte says 0xFF, or a backslash at the end).
    LPROJ_SCAN_ESCAPE = 2,
};

/// Where a scan ended.
typedef struct {
    /// The source offset where it ended (see `stop`).
    long offset;
    /// Bytes written to the destination.
    long written;
    int stop;
    /// Whether the text copied may not be valid UTF-8 (`doubtful` passed
    /// in, or a step found a sequence that is not, up to and including
    /// where it stopped).
    int doubtful;
} lproj_scan_result;

/// Copies a quoted string's text from source[start...] to destination[0...]
/// in steps of 32 bytes, writing the escapes that stand for one ASCII byte
/// (\n, \t, \", \\ and the like) as it goes, until the closing `quote`,
/// an escape it leaves to the caller, or fewer than 32 bytes left. Each
/// step is stored whole (up to 31 bytes past what it writes). With
/// `validating` and not yet `doubtful`, a step holding a byte >= 0x80 (or
/// following one) is checked as UTF-8 against the three source bytes
/// before it, which must be readable (start >= 3).
/// Only where `lproj_scan_is_vectorized()`: its instructions are AVX2's.
lproj_scan_result lproj_scan_copy(const uint8_t *source, long start, long count, uint8_t *destination,
                                  uint8_t quote, int validating, int doubtful);

/// What a backslash and `byte` stand for when that is one byte: a control
/// for the letters a b f n r t v, else `byte` itself (CoreFoundation drops
/// the backslash) — or 0xFF where the escape is longer or not ASCII (an
/// octal or \U escape, \u or \x, a byte >= 0x80), which the parser reads.
/// The one home of the rule: the 32-byte steps and the parser both ask it.
static inline uint8_t lproj_escaped_byte(uint8_t byte) {
    switch (byte) {
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
    case 'U': case 'u': case 'x':
        return 0xFF;
    case 'a': return 0x07;
    case 'b': return 0x08;
    case 'f': return 0x0C;
    case 'n': return 0x0A;
    case 'r': return 0x0D;
    case 't': return 0x09;
    case 'v': return 0x0B;
    default: return byte < 0x80 ? byte : 0xFF;
    }
}

/// Whether the processor has AVX2; set before `main` runs.
extern int lproj_scan_avx2;

/// Whether lproj_scan_copy may be called (the processor has AVX2): a load,
/// not a call, so that the choice costs a string nothing. (The check is
/// not inside lproj_scan_copy: the compiler may place AVX2 instructions of
/// a function built for AVX2 before any of its branches.)
static inline int lproj_scan_is_vectorized(void) {
    return lproj_scan_avx2;
}

#endif
