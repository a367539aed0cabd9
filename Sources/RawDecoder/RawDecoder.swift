internal import CRaw

/// Safe Swift face over LibRaw (`libraw_r`). Every LibRaw call of the project goes through this module.
public enum LibRaw {
    /// LibRaw's version, read from the library at run time (`libraw_version()`).
    public static var version: String { String(cString: libraw_version()) }
}
