// CSQLite: SQLite 3 from Debian. Only Store imports this module.
#include <sqlite3.h>
