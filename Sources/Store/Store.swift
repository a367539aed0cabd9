internal import CSQLite

/// Safe Swift face over SQLite. Every sqlite3 call of the project goes through this module.
public enum SQLite {
    /// SQLite's version, read from the library at run time (`sqlite3_libversion()`).
    public static var version: String { String(cString: sqlite3_libversion()) }
}
