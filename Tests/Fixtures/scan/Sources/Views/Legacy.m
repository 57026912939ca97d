#import <Foundation/Foundation.h>

#define RDLocalizedString(key) NSLocalizedString(key, nil)

void legacy(NSBundle *bundle) {
    NSString *a = NSLocalizedString(@"objc_key", @"comment");
    NSString *b = NSLocalizedStringFromTable(@"menu_close", @"Menu", nil);
    NSString *c = [bundle localizedStringForKey:@"objc_bundle_key" value:@"" table:@"Menu"];
    NSString *d = RDLocalizedString(@"macro_key");
    char quote = '"';
    // NSLocalizedString(@"objc_commented", nil);
}
