// CCrypto: OpenSSL's libcrypto from Debian (libssl-dev), for SHA-256 over whole files (SHA-NI where the CPU has it).
// Only Hashing imports this module.
#include <openssl/evp.h>
