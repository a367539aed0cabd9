internal import CRaw
import Foundation

extension LibRawDecoder {
    /// Applies what LibRaw's loader leaves out of a DNG's opcode lists (see `DNGOpcode`), after `libraw_unpack`:
    /// OpcodeList2's MapPolynomials, unless the loader is `lossy_dng_load_raw` (which applies them itself; twice would
    /// be wrong). Any other opcode that is not optional refuses the file; optional ones are reported as skipped.
    /// - Parameter read: reads the DNG's opcode lists (from its path, or from its bytes in memory).
    /// - Returns: what was applied and what was skipped, one line each.
    /// - Throws: `RawDecodeError` `.unsupportedOpcode` naming the opcode.
    func applyDNGOpcodes(_ read: () throws(DNGOpcodeReader.Unreadable) -> [DNGOpcode]) throws -> (
        applied: [String], skipped: [String]
    ) {
        let ops: [DNGOpcode]
        do { ops = try read() } catch {
            throw refusal("the DNG's opcode lists cannot be read (\(error)); the picture would be wrong")
        }
        if ops.isEmpty { return ([], []) }
        let loader = libraw_unpack_function_name(handle).map { String(cString: $0) } ?? ""
        let libRawMaps = loader.contains("lossy_dng_load_raw")
        var maps: [MapPolynomial] = []
        var applied: [String] = []
        var skipped: [String] = []
        for op in ops {
            let label = "OpcodeList\(op.list) \(op.name)"
            if op.list == 2, op.id == 8, libRawMaps { continue }
            if op.list == 2, op.id == 8, let p = op.mapPolynomial, let why = unsupported(p) {
                if op.isOptional {
                    skipped.append("\(label) (optional): \(why)")
                } else {
                    throw refusal("\(label) \(why)")
                }
            } else if op.list == 2, op.id == 8, let p = op.mapPolynomial {
                maps.append(p)
                applied.append("\(label), plane \(p.plane)")
            } else if op.isOptional {
                skipped.append("\(label) (optional)")
            } else {
                throw refusal(
                    "DNG \(label) is not optional and neither LibRaw \(LibRaw.version) nor Readback applies it,"
                        + " so the picture would be wrong")
            }
        }
        if !maps.isEmpty { mapPolynomials(maps) }
        return (applied, skipped)
    }

    private func refusal(_ s: String) -> RawDecodeError {
        RawDecodeError(file: fileName, reason: .unsupportedOpcode(s))
    }

    /// Why a MapPolynomial cannot be applied here, nil when it can: it must cover the whole image one sample at a time,
    /// on planes LibRaw holds, with no black level to remove first.
    private func unsupported(_ p: MapPolynomial) -> String? {
        let d = handle.pointee
        let planes = d.rawdata.raw_image != nil ? 1 : Int(d.idata.colors)
        if p.top != 0 || p.left != 0 || p.bottom < Int(d.sizes.height) || p.right < Int(d.sizes.width) {
            return "covers part of the image (\(p.top), \(p.left))–(\(p.bottom), \(p.right)), which is not applied"
        }
        if p.rowPitch != 1 || p.colPitch != 1 {
            return "skips samples (pitch \(p.rowPitch)×\(p.colPitch)), not applied"
        }
        if p.plane < 0 || p.planes < 1 || p.plane + p.planes > planes {
            return "names planes \(p.plane)..<\(p.plane + p.planes) of \(planes)"
        }
        // cblack[0…3] per channel, cblack[4]×cblack[5] the repeat pattern whose values follow from cblack[6].
        let pattern = Int(min(cblack(4), 64) * min(cblack(5), 64))
        if d.color.black != 0 || (0..<4).contains(where: { cblack($0) != 0 })
            || (6..<(6 + pattern)).contains(where: { cblack($0) != 0 })
        {
            return "follows a black level, which is not applied"
        }
        return d.color.maximum > 0 ? nil : "has no white level to scale by"
    }

    /// `color.cblack[i]`: Swift does not import the 4104-element array, which sits just before `color.black`.
    func cblack(_ i: Int) -> UInt32 {
        let color = MemoryLayout<libraw_data_t>.offset(of: \libraw_data_t.color)!
        let black = MemoryLayout<libraw_colordata_t>.offset(of: \libraw_colordata_t.black)!
        let base = UnsafeRawPointer(handle) + color + black - 4 * Int(LIBRAW_CBLACK_SIZE)
        return base.load(fromByteOffset: 4 * i, as: UInt32.self)
    }

    /// Maps every sample of the unpacked buffer through its plane's polynomial, x = value ÷ white level, to 16 bits;
    /// the white level becomes 65535 (in `color` and `rawdata.color`, which `dcraw_process` copies back).
    private func mapPolynomials(_ maps: [MapPolynomial]) {
        let d = handle.pointee
        let white = Int(d.color.maximum)
        let rw = Int(d.sizes.raw_width)
        let rh = Int(d.sizes.raw_height)
        let buffer: UnsafeMutablePointer<UInt16>
        let channels: Int
        if let raw = d.rawdata.raw_image {
            (buffer, channels) = (raw, 1)
        } else if let c4 = d.rawdata.color4_image {
            (buffer, channels) = (UnsafeMutableRawPointer(c4).assumingMemoryBound(to: UInt16.self), 4)
        } else if let c3 = d.rawdata.color3_image {
            (buffer, channels) = (UnsafeMutableRawPointer(c3).assumingMemoryBound(to: UInt16.self), 3)
        } else {
            return
        }
        let pitch = d.sizes.raw_pitch > 0 ? Int(d.sizes.raw_pitch) / 2 : rw * channels
        for m in maps {
            let table = (0...white).map { UInt16((m.value(Double($0) / Double(white)) * 65535).rounded()) }
            for plane in m.plane..<(m.plane + m.planes) {
                for y in 0..<rh {
                    let row = buffer + y * pitch + plane
                    for x in 0..<rw {
                        let v = Int(row[x * channels])
                        row[x * channels] = table[min(v, white)]
                    }
                }
            }
        }
        handle.pointee.color.maximum = 65535
        handle.pointee.rawdata.color.maximum = 65535
        handle.pointee.color.data_maximum = 0
        handle.pointee.rawdata.color.data_maximum = 0
    }
}
