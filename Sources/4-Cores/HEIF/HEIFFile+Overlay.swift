// libheif 1.15 dies with SIGSEGV in its overlay code on a conformant `iovl` primary (fixed upstream after 1.15): no
// error to catch, the whole process goes. Every caller that hands a file's primary to libheif asks here first.
extension HEIFFile {
    /// The first overlay (`iovl`) item in the primary's derivation (the primary itself, or an item it derives from),
    /// or nil when there is none or no primary. Bounded like every walk of the item graph.
    public var overlayInPrimaryDerivation: UInt32? {
        guard let primary = primaryItemID else { return nil }
        var seen: Set<UInt32> = []
        var queue = [primary]
        while let id = queue.popLast(), seen.count < 4096 {
            guard seen.insert(id).inserted, let item = item(id) else { continue }
            if item.type == "iovl" { return id }
            queue += derivedInputs(of: id)
        }
        return nil
    }

    /// `overlayInPrimaryDerivation` of the file held in `bytes` (parsed by the bounded container parser).
    public static func overlayInPrimaryDerivation(_ bytes: [UInt8]) -> UInt32? {
        HEIFFile(bytes: bytes).overlayInPrimaryDerivation
    }

    /// Why the primary of the file held in `bytes` must not be handed to libheif 1.15, or nil when it may be.
    public static func libheifOverlayRefusal(_ bytes: [UInt8]) -> String? {
        overlayInPrimaryDerivation(bytes).map(overlayRefusal)
    }

    /// The one sentence naming an overlay item libheif is not given.
    public static func overlayRefusal(_ item: UInt32) -> String {
        "an overlay (iovl, item \(item)) of other items in the primary's derivation, which libheif 1.15 crashes on"
    }
}
