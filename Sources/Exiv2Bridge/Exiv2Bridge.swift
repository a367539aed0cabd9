internal import CExiv2Shim

/// Safe Swift face over the exiv2 shim. Every C call of the shim goes through this module.
public enum Exiv2 {
    /// exiv2's version, read from the library at run time (`Exiv2::versionString()`).
    public static var version: String { String(cString: rb_exiv2_version()) }
}
