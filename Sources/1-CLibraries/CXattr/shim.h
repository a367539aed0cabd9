// CXattr: the Linux extended-attribute calls (listxattr, getxattr, setxattr and their l- forms) from glibc's
// <sys/xattr.h>, which Swift's Glibc module does not export. Only FileFacts imports this module.
#include <sys/xattr.h>
