#include "lproj_icu.h"

#include <string.h>
#include <unicode/uloc.h>
#include <unicode/unum.h>
#include <pthread.h>
#include <unicode/upluralrules.h>
#include <unicode/ures.h>
#include <unicode/ustring.h>
#include <unicode/uenum.h>

// BCP 47 tag -> ICU locale ID ("zh-Hant-TW" -> "zh_Hant_TW").
static int to_locale_id(const char *tag, char *id, int capacity) {
    UErrorCode status = U_ZERO_ERROR;
    int32_t parsed = 0;
    int32_t length = uloc_forLanguageTag(tag, id, capacity, &parsed, &status);
    if (U_FAILURE(status) || status == U_STRING_NOT_TERMINATED_WARNING || length >= capacity) return -1;
    return length;
}

// ICU locale ID -> BCP 47 tag in `out`.
static int to_tag(const char *id, char *out, int capacity) {
    if (id[0] == '\0' || strcmp(id, "root") == 0) {
        if (capacity < 1) return -1;
        out[0] = '\0';
        return 0;
    }
    UErrorCode status = U_ZERO_ERROR;
    int32_t length = uloc_toLanguageTag(id, out, capacity, 1, &status);
    if (U_FAILURE(status) || status == U_STRING_NOT_TERMINATED_WARNING || length >= capacity) return -1;
    return length;
}

// Applies an ICU locale-ID transformation (likely subtags) to a BCP 47 tag.
typedef int32_t (*locale_transform)(const char *, char *, int32_t, UErrorCode *);

static int transform_tag(const char *tag, locale_transform transform, char *out, int capacity) {
    char id[ULOC_FULLNAME_CAPACITY], result[ULOC_FULLNAME_CAPACITY];
    if (to_locale_id(tag, id, sizeof id) < 0) return -1;
    UErrorCode status = U_ZERO_ERROR;
    int32_t length = transform(id, result, sizeof result, &status);
    if (U_FAILURE(status) || length >= (int32_t)sizeof result) return -1;
    return to_tag(result, out, capacity);
}

int lproj_icu_maximize(const char *tag, char *out, int capacity) {
    return transform_tag(tag, uloc_addLikelySubtags, out, capacity);
}

int lproj_icu_minimize(const char *tag, char *out, int capacity) {
    return transform_tag(tag, uloc_minimizeSubtags, out, capacity);
}

// ICU's language aliases, opened once for the life of the process.
static UResourceBundle *aliases;
static pthread_once_t aliases_once = PTHREAD_ONCE_INIT;

static void open_aliases(void) {
    UErrorCode status = U_ZERO_ERROR;
    UResourceBundle *bundle = ures_openDirect(NULL, "metadata", &status);
    bundle = ures_getByKey(bundle, "alias", bundle, &status);
    bundle = ures_getByKey(bundle, "language", bundle, &status);
    aliases = U_SUCCESS(status) ? bundle : NULL;
}

static UResourceBundle *language_aliases(void) {
    pthread_once(&aliases_once, open_aliases);
    return aliases;
}

static int alias_replacement(UResourceBundle *table, const char *key, char *out, int capacity) {
    UErrorCode status = U_ZERO_ERROR;
    UResourceBundle *entry = ures_getByKey(table, key, NULL, &status);
    if (U_FAILURE(status)) {
        if (entry != NULL) ures_close(entry);
        return -1;
    }
    int32_t length = capacity;
    ures_getUTF8StringByKey(entry, "replacement", out, &length, 1, &status);
    ures_close(entry);
    if (U_FAILURE(status) || length >= capacity) return -1;
    return length;
}

int lproj_icu_language_alias(const char *locale_id, char *out, int capacity) {
    UResourceBundle *table = language_aliases();
    if (table == NULL || strlen(locale_id) >= ULOC_FULLNAME_CAPACITY) return -1;
    int length = alias_replacement(table, locale_id, out, capacity);
    if (length >= 0) return length;
    const char *rest = strchr(locale_id, '_');
    if (rest == NULL) return -1;
    char language[ULOC_FULLNAME_CAPACITY];
    memcpy(language, locale_id, (size_t)(rest - locale_id));
    language[rest - locale_id] = '\0';
    length = alias_replacement(table, language, out, capacity);
    if (length < 0) return -1;
    // The language alone was replaced: its script and region come back, unless the replacement has its own.
    if (strchr(out, '_') == NULL) {
        if (length + (int)strlen(rest) >= capacity) return -1;
        strcat(out, rest);
        return (int)strlen(out);
    }
    const char *last = strrchr(locale_id, '_');
    if (length > 5 && out[length - 5] == '_' && strlen(last) <= 4) {
        if (length + (int)strlen(last) >= capacity) return -1;
        strcat(out, last);
    }
    return (int)strlen(out);
}

int lproj_icu_parent_locales(char *out, int capacity) {
    UErrorCode status = U_ZERO_ERROR;
    UResourceBundle *data = ures_openDirect(NULL, "supplementalData", &status);
    UResourceBundle *table = ures_getByKey(data, "parentLocales", NULL, &status);
    int used = 0;
    while (U_SUCCESS(status) && ures_hasNext(table)) {
        UResourceBundle *children = ures_getNextResource(table, NULL, &status);
        if (U_FAILURE(status)) break;
        const char *parent = ures_getKey(children);
        int length = (int)strlen(parent);
        if (used + length + 2 >= capacity) { status = U_BUFFER_OVERFLOW_ERROR; ures_close(children); break; }
        memcpy(out + used, parent, (size_t)length);
        used += length;
        out[used++] = ':';
        for (int32_t index = 0; U_SUCCESS(status) && index < ures_getSize(children); index++) {
            int32_t childLength = 0;
            const UChar *child = ures_getStringByIndex(children, index, &childLength, &status);
            if (U_FAILURE(status) || used + childLength + 2 >= capacity) { status = U_BUFFER_OVERFLOW_ERROR; break; }
            u_UCharsToChars(child, out + used, childLength);
            used += childLength;
            out[used++] = ' ';
        }
        out[used++] = ';';
        ures_close(children);
    }
    if (table != NULL) ures_close(table);
    if (data != NULL) ures_close(data);
    if (U_FAILURE(status) || used >= capacity) return -1;
    out[used] = '\0';
    return used;
}

// Opened plural rules, one per locale, kept for the life of the process:
// opening them is the expensive part (a formatted lookup selects a plural
// form on every call). Selecting is const in ICU and safe from many threads.
enum { RULES_CACHE_SIZE = 64 };
static struct { char id[ULOC_FULLNAME_CAPACITY]; UPluralRules *rules; } rules_cache[RULES_CACHE_SIZE];
static int rules_cached;
static pthread_mutex_t rules_lock = PTHREAD_MUTEX_INITIALIZER;

// The rules for `id`, from the cache or opened (and cached while there is room).
// `owned` says whether the caller must close them.
static UPluralRules *plural_rules(const char *id, int *owned) {
    *owned = 0;
    pthread_mutex_lock(&rules_lock);
    for (int i = 0; i < rules_cached; i++) {
        if (strcmp(rules_cache[i].id, id) == 0) {
            UPluralRules *rules = rules_cache[i].rules;
            pthread_mutex_unlock(&rules_lock);
            return rules;
        }
    }
    UErrorCode status = U_ZERO_ERROR;
    UPluralRules *rules = uplrules_open(id, &status);
    if (U_FAILURE(status)) {
        pthread_mutex_unlock(&rules_lock);
        return NULL;
    }
    if (rules_cached < RULES_CACHE_SIZE) {
        strncpy(rules_cache[rules_cached].id, id, sizeof rules_cache[0].id - 1);
        rules_cache[rules_cached].rules = rules;
        rules_cached++;
    } else {
        *owned = 1;
    }
    pthread_mutex_unlock(&rules_lock);
    return rules;
}

int lproj_icu_plural_category(const char *tag, double number, int fraction_digits, char *out, int capacity) {
    char id[ULOC_FULLNAME_CAPACITY];
    if (to_locale_id(tag, id, sizeof id) < 0) return -1;
    UErrorCode status = U_ZERO_ERROR;
    int owned;
    UPluralRules *rules = plural_rules(id, &owned);
    if (!rules) return -1;
    UChar keyword[32];
    int32_t length;
    // A whole number shown without fraction digits selects as the plain value does.
    if (fraction_digits == 0 && number == (double)(long long)number) fraction_digits = -1;
    if (fraction_digits >= 0) {
        // Format with the visible fraction digits so that "1.0" selects as ICU would for that text.
        UNumberFormat *format = unum_open(UNUM_DECIMAL, NULL, 0, "en", NULL, &status);
        if (U_FAILURE(status)) { if (owned) uplrules_close(rules); return -1; }
        unum_setAttribute(format, UNUM_MIN_FRACTION_DIGITS, fraction_digits);
        unum_setAttribute(format, UNUM_MAX_FRACTION_DIGITS, fraction_digits);
        length = uplrules_selectWithFormat(rules, number, format, keyword, 32, &status);
        unum_close(format);
    } else {
        length = uplrules_select(rules, number, keyword, 32, &status);
    }
    if (owned) uplrules_close(rules);
    if (U_FAILURE(status) || length >= 32 || length >= capacity) return -1;
    u_UCharsToChars(keyword, out, length);
    out[length] = '\0';
    return length;
}

int lproj_icu_is_right_to_left(const char *tag) {
    char id[ULOC_FULLNAME_CAPACITY];
    if (to_locale_id(tag, id, sizeof id) < 0) return 0;
    return uloc_isRightToLeft(id) ? 1 : 0;
}

int lproj_icu_plural_keywords(const char *tag, char *out, int capacity) {
    char id[ULOC_FULLNAME_CAPACITY];
    if (to_locale_id(tag, id, sizeof id) < 0) return -1;
    int owned;
    UPluralRules *rules = plural_rules(id, &owned);
    if (!rules) return -1;
    UErrorCode status = U_ZERO_ERROR;
    UEnumeration *keywords = uplrules_getKeywords(rules, &status);
    int length = 0;
    if (U_SUCCESS(status)) {
        const char *keyword;
        int32_t keywordLength;
        while ((keyword = uenum_next(keywords, &keywordLength, &status)) != NULL && U_SUCCESS(status)) {
            if (length + keywordLength + 2 > capacity) { length = -1; break; }
            if (length > 0) out[length++] = ' ';
            memcpy(out + length, keyword, (size_t)keywordLength);
            length += keywordLength;
        }
        uenum_close(keywords);
    }
    if (owned) uplrules_close(rules);
    if (U_FAILURE(status) || length < 0) return -1;
    out[length] = '\0';
    return length;
}
