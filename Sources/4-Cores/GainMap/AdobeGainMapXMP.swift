import Foundation

/// Adobe / UltraHDR `hdrgm` gain-map XMP (Adobe "Gain Map Specification" 1.0), as Samsung writes on its
/// `urn:com:samsung:photo:2024:aux:hdrgainmap` auxiliary image. Scalar (one-channel) values only.
public struct AdobeGainMapXMP: Sendable, Hashable {
    /// The `hdrgm` namespace.
    public static let namespace = "http://ns.adobe.com/hdr-gain-map/1.0/"

    /// `hdrgm:Version` (e.g. "1.0"); its presence marks the packet as gain-map metadata.
    public var version: String?
    /// `hdrgm:GainMapMin` (log2), one value or three (R, G, B).
    public var gainMapMin: [Double]
    /// `hdrgm:GainMapMax` (log2), one value or three.
    public var gainMapMax: [Double]
    /// `hdrgm:Gamma`, one value or three.
    public var gamma: [Double]
    /// `hdrgm:OffsetSDR`, one value or three.
    public var offsetSDR: [Double]
    /// `hdrgm:OffsetHDR`, one value or three.
    public var offsetHDR: [Double]
    /// `hdrgm:HDRCapacityMin` (log2).
    public var hdrCapacityMin: Double?
    /// `hdrgm:HDRCapacityMax` (log2).
    public var hdrCapacityMax: Double?
    /// `hdrgm:BaseRenditionIsHDR`.
    public var baseRenditionIsHDR: Bool?

    /// Scans an XMP packet for `hdrgm` properties (attribute or simple element form, any prefix bound to the
    /// namespace). Bounded byte scan; never traps.
    /// - Parameter packet: the XMP bytes.
    /// - Returns: the values, or nil when the packet does not use the namespace.
    public static func parse(_ packet: [UInt8]) -> AdobeGainMapXMP? {
        let text = String(decoding: packet, as: UTF8.self)
        let p = XMPScan.prefixes(boundTo: namespace, in: text)
        guard !p.isEmpty else { return nil }
        func d(_ n: String) -> Double? { XMPScan.value(of: n, prefixes: p, in: text).flatMap { Double($0) } }
        func ds(_ n: String) -> [Double] { XMPScan.values(of: n, prefixes: p, in: text).compactMap { Double($0) } }
        return AdobeGainMapXMP(
            version: XMPScan.value(of: "Version", prefixes: p, in: text), gainMapMin: ds("GainMapMin"),
            gainMapMax: ds("GainMapMax"), gamma: ds("Gamma"), offsetSDR: ds("OffsetSDR"), offsetHDR: ds("OffsetHDR"),
            hdrCapacityMin: d("HDRCapacityMin"), hdrCapacityMax: d("HDRCapacityMax"),
            baseRenditionIsHDR: XMPScan.value(of: "BaseRenditionIsHDR", prefixes: p, in: text).map {
                $0.lowercased() == "true"
            })
    }

    /// The same parameters as ISO 21496-1 metadata (Adobe defaults: min 0, gamma 1, offsets 1/64, capacity
    /// min 0; a base that is HDR swaps the headrooms); three channels when any list has three values.
    /// nil without `Version`, `GainMapMax` and `HDRCapacityMax`.
    public var isoMetadata: GainMapMetadata? {
        guard version != nil, !gainMapMax.isEmpty, let cap = hdrCapacityMax,
            let cmin = UFraction(approximating: Swift.max(0, hdrCapacityMin ?? 0)),
            let cmax = UFraction(approximating: Swift.max(0, cap))
        else { return nil }
        let n = [gainMapMin, gainMapMax, gamma, offsetSDR, offsetHDR].contains { $0.count == 3 } ? 3 : 1
        func at(_ v: [Double], _ c: Int, _ def: Double) -> Double { v.isEmpty ? def : v[Swift.min(c, v.count - 1)] }
        var channels: [GainMapChannel] = []
        for c in 0..<n {
            guard let fmin = Fraction(approximating: at(gainMapMin, c, 0)),
                let fmax = Fraction(approximating: at(gainMapMax, c, 0)),
                let g = UFraction(approximating: at(gamma, c, 1)),
                let bo = Fraction(approximating: at(offsetSDR, c, 1.0 / 64)),
                let ao = Fraction(approximating: at(offsetHDR, c, 1.0 / 64))
            else { return nil }
            channels.append(GainMapChannel(min: fmin, max: fmax, gamma: g, baseOffset: bo, alternateOffset: ao))
        }
        let hdrBase = baseRenditionIsHDR ?? false
        return GainMapMetadata(
            baseHdrHeadroom: hdrBase ? cmax : cmin, alternateHdrHeadroom: hdrBase ? cmin : cmax, channels: channels)
    }
}
