#import <Foundation/Foundation.h>

NSString *Greeting(void) {
    return NSLocalizedString(@"Inbox", @"The list of messages");
}

NSString *Other(void) {
    return NSLocalizedStringFromTable(@"Elsewhere", @"Other", @"A key of another table");
}
