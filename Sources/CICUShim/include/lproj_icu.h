// A small C surface over the system ICU (libicu-dev), so that Swift never
// imports ICU's headers (they clash with the ICU that Foundation bundles).
// Every function takes and returns BCP 47 tags ("zh-Hant-TW") and writes a
// NUL-terminated result into `out`; it returns the result's length, or -1
// when ICU fails or `capacity` is too small.
#ifndef LPROJ_ICU_H
#define LPROJ_ICU_H

#ifdef __cplusplus
extern "C" {
#endif

/// Adds likely subtags: "zh-TW" -> "zh-Hant-TW", "zh" -> "zh-Hans-CN", "en" -> "en-Latn-US".
int lproj_icu_maximize(const char *tag, char *out, int capacity);

/// Removes likely subtags: "zh-Hant-TW" -> "zh-TW", "en-Latn-US" -> "en".
int lproj_icu_minimize(const char *tag, char *out, int capacity);

/// The replacement ICU's language alias data (metadata/alias/language)
/// gives an ICU locale ID ("iw" -> "he", "sh_BA" -> "sr_Latn_BA"), looked
/// up whole and then by its language alone (the script and region kept);
/// -1 when it has none. Takes and writes ICU locale IDs, not tags.
int lproj_icu_language_alias(const char *locale_id, char *out, int capacity);

/// CLDR's parentLocales (supplementalData) as ICU ships them:
/// "en_001:en_150 en_AG ...;es_419:es_AR ...;" (ICU locale IDs).
int lproj_icu_parent_locales(char *out, int capacity);

/// The CLDR plural category ("zero", "one", "two", "few", "many", "other")
/// of `number` in the language of `tag`. `fraction_digits` is the number of
/// visible fraction digits (1 vs 1.0 differ in some languages); pass -1 to
/// let ICU decide from the value.
int lproj_icu_plural_category(const char *tag, double number, int fraction_digits, char *out, int capacity);

/// The plural categories CLDR gives the language of `tag`, space-separated
/// in ICU's order ("one few many other" for ru; "other" for ja).
int lproj_icu_plural_keywords(const char *tag, char *out, int capacity);
/// 1 when the language of `tag` is written right to left (ar, he, fa, ur...), else 0.
int lproj_icu_is_right_to_left(const char *tag);

#ifdef __cplusplus
}
#endif

#endif
