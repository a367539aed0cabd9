internal import CHeif

/// Safe Swift face over libheif. Every libheif call of the project goes through this module.
public enum Heif {
    /// libheif's version, read from the library at run time (`heif_get_version()`).
    public static var version: String { String(cString: heif_get_version()) }
}
