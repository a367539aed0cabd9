import Findings

/// Structural checks over the parsed model; each emits a stable code from `FindingCode`.
extension HEIFFile {
    func validate(pitmOffset: Int?, metaOffset: Int?) -> [Finding] {
        var out = ValidationFindings()
        // mif1 is the brand of image items (HEIF §10.2.1); a sequence-only file (no meta) carries msf1 instead.
        let sequenceOnly = metaOffset == nil && isImageSequence
        if let b = brands, !b.contains("mif1"), !sequenceOnly {
            out.add(
                .containerBrandMif1Missing,
                "ftyp brands (\(([b.major] + b.compatible).map(\.description).joined(separator: ", "))) lack mif1",
                boxes.first { $0.type == "ftyp" }?.offset)
        }
        guard metaOffset != nil else { return out.all }
        validatePrimaryItem(pitmOffset: pitmOffset, metaOffset: metaOffset, &out)
        validateLocations(&out)
        validateReferences(&out)
        validateProperties(&out)
        validateGrids(&out)
        validateToneMaps(&out)
        validateExifOffsets(&out)
        return out.all
    }

    /// The primary item exists, is listed and is not hidden.
    private func validatePrimaryItem(pitmOffset: Int?, metaOffset: Int?, _ out: inout ValidationFindings) {
        if let p = primaryItemID {
            if let it = item(p) {
                if it.hidden { out.add(.containerPitmHidden, "primary item \(p) is hidden", it.offset) }
            } else {
                out.add(.containerPitmDangling, "pitm names item \(p), which iinf does not list", pitmOffset)
            }
        } else {
            out.add(.containerPitmMissing, "meta has no pitm", metaOffset)
        }
    }

    /// Every image and metadata item has a location, and every extent lies inside the file (or `idat`).
    private func validateLocations(_ out: inout ValidationFindings) {
        let fileSize = bytes.count
        for it in items where it.isImage || it.isExif || it.isXMP {
            // An `iden` derived item has no payload and may have no iloc entry (ISO/IEC 23008-12 §6.6.2.2).
            if locations[it.id] == nil && it.type != "iden" {
                out.add(.containerItemNoLocation, "item \(it.id) ('\(it.type)') has no iloc entry", it.offset)
            }
        }
        for id in locations.keys.sorted() {
            let loc = locations[id]!
            if item(id) == nil {
                out.add(.containerIlocUnknownItem, "iloc lists item \(id), which iinf does not list", loc.offset)
            }
            if loc.constructionMethod > 1 || loc.dataReferenceIndex != 0 {
                out.add(
                    .containerIlocUnsupported,
                    "item \(id) uses construction method \(loc.constructionMethod), data reference \(loc.dataReferenceIndex)",
                    loc.offset)
                continue
            }
            let areaStart = loc.constructionMethod == 1 ? (idat?.lowerBound ?? fileSize) : 0
            let areaEnd = loc.constructionMethod == 1 ? (idat?.upperBound ?? fileSize) : fileSize
            if loc.constructionMethod == 1 && idat == nil {
                out.add(.containerIlocExtentPastEof, "item \(id) is in idat, but there is no idat", loc.offset)
                continue
            }
            for e in loc.extents {
                let (s, o1) = loc.baseOffset.addingReportingOverflow(e.offset)
                let (end, o2) = s.addingReportingOverflow(e.length)
                let absStart = o1 ? UInt64.max : s &+ UInt64(areaStart)
                if o1 || o2 || absStart > UInt64(areaEnd) || s &+ e.length &+ UInt64(areaStart) > UInt64(areaEnd)
                    || end < s
                {
                    let placeName = loc.constructionMethod == 1 ? "idat" : "the file"
                    let absEnd = o1 || o2 ? "overflow" : String(s &+ e.length &+ UInt64(areaStart))
                    out.add(
                        .containerIlocExtentPastEof,
                        "item \(id) extent \(s)+\(e.length) ends at \(absEnd), past the end of \(placeName) (\(areaEnd))",
                        o1 ? loc.offset : toInt(absStart) ?? loc.offset)
                    break
                }
            }
        }
    }

    /// References name existing items; one `dimg` box per item; `cdsc` and `auxl` with one target (libheif < 1.18).
    private func validateReferences(_ out: inout ValidationFindings) {
        var dimgFrom: Set<UInt32> = []
        for r in references {
            if item(r.from) == nil {
                out.add(
                    .containerIrefMissingItem, "'\(r.type)' reference from item \(r.from), which does not exist",
                    r.offset)
            }
            for t in r.to where item(t) == nil && !groups.contains(where: { $0.id == t }) {
                out.add(
                    .containerIrefMissingItem,
                    "'\(r.type)' reference from item \(r.from) to item \(t), which does not exist",
                    r.offset)
            }
            if r.type == "dimg" {
                if dimgFrom.contains(r.from) {
                    out.add(
                        .containerIrefDimgDuplicate, "item \(r.from) has more than one dimg reference box", r.offset)
                }
                dimgFrom.insert(r.from)
            }
            if r.type == "cdsc" && r.to.count > 1 {
                out.add(
                    .containerIrefCdscMultiTarget,
                    "cdsc from item \(r.from) has \(r.to.count) targets \(r.to); libheif < 1.18 refuses the file",
                    r.offset)
            }
            if r.type == "auxl" && r.to.count > 1 {
                out.add(
                    .containerIrefAuxlMultiTarget,
                    "auxl from item \(r.from) has \(r.to.count) targets \(r.to); libheif < 1.18 refuses the file",
                    r.offset)
            }
        }
    }

    /// Property associations: known items, indices inside `ipco`, transformative properties essential and after `ispe`;
    /// every image has an `ispe`.
    private func validateProperties(_ out: inout ValidationFindings) {
        let ipmaOffset = boxes.first { $0.type == "meta" }?.child("iprp")?.child("ipma")?.offset
        for id in associationOrder {
            let list = associations[id] ?? []
            // An entity group's id is as valid an ipma entry as an item's (ISO/IEC 23008-12 §9.3: properties of
            // an `altr` or `albc` group, for one).
            if item(id) == nil && !groups.contains(where: { $0.id == id }) {
                out.add(
                    .containerIpmaUnknownItem, "ipma lists item \(id), which neither iinf nor grpl lists", ipmaOffset)
            }
            var seenIspe = false
            for a in list {
                if a.index > propertyBoxes.count {
                    out.add(
                        .containerIpmaIndexOutOfRange,
                        "item \(id) is associated with property \(a.index), but ipco has \(propertyBoxes.count)",
                        ipmaOffset)
                    continue
                }
                guard a.index >= 1 else { continue }
                let p = propertyBoxes[a.index - 1].property
                if p.type == "ispe" { seenIspe = true }
                if p.isTransformative {
                    if !a.essential {
                        out.add(
                            .containerPropertyNotEssential,
                            "item \(id): transformative property '\(p.type)' (#\(a.index)) is not marked essential",
                            propertyBoxes[a.index - 1].range?.lowerBound)
                    }
                    if !seenIspe
                        && list.contains(where: { x in
                            x.index >= 1 && x.index <= propertyBoxes.count
                                && propertyBoxes[x.index - 1].property.type == "ispe"
                        })
                    {
                        out.add(
                            .containerPropertyTransformBeforeIspe, "item \(id): '\(p.type)' is associated before ispe",
                            propertyBoxes[a.index - 1].range?.lowerBound)
                    }
                }
            }
        }
        for it in items where it.isImage {
            if property("ispe", of: it.id) == nil {
                out.add(.containerIspeMissing, "image item \(it.id) ('\(it.type)') has no ispe property", it.offset)
            }
        }
    }

    /// Every grid payload parses and has as many `dimg` tiles as rows × columns.
    private func validateGrids(_ out: inout ValidationFindings) {
        for it in items where it.type == "grid" {
            guard let p = payload(of: it.id) else { continue }
            guard let g = ImageGrid.parse(p) else {
                out.add(
                    .containerGridInvalid, "grid item \(it.id) payload (\(p.count) bytes) is not an ImageGrid",
                    it.offset)
                continue
            }
            let tiles = derivedInputs(of: it.id).count
            if tiles != g.rows * g.columns {
                out.add(
                    .containerGridInvalid, "grid item \(it.id) is \(g.rows)×\(g.columns) but has \(tiles) dimg tiles",
                    it.offset)
            }
        }
    }

    /// Tone maps agree with the `tmap` brand, have [base, gain map] inputs, and an `altr` group puts them before the
    /// base.
    private func validateToneMaps(_ out: inout ValidationFindings) {
        let tmaps = toneMapItems
        if let b = brands {
            if b.contains("tmap") && tmaps.isEmpty {
                out.add(
                    .containerTmapBrandWithoutItem, "ftyp lists the tmap brand but there is no tmap item",
                    boxes.first { $0.type == "ftyp" }?.offset)
            }
            if !b.contains("tmap"), let t = tmaps.first {
                out.add(.containerTmapItemWithoutBrand, "tmap item \(t) but no tmap brand in ftyp", item(t)?.offset)
            }
        }
        for t in tmaps {
            let d = derivedInputs(of: t)
            if d.count != 2 || d[0] == d[1] || d.contains(where: { item($0) == nil || !(item($0)?.isImage ?? false) }) {
                out.add(
                    .containerTmapInputs, "tmap item \(t) has dimg inputs \(d); expected [base, gain map]",
                    item(t)?.offset)
                continue
            }
            let ok = groups.contains { g in
                guard g.type == "altr", let i = g.entities.firstIndex(of: t), let j = g.entities.firstIndex(of: d[0])
                else { return false }
                return i < j
            }
            if !ok {
                let g = groups.first { $0.type == "altr" && $0.entities.contains(t) }
                out.add(
                    .containerAltrOrder,
                    g.map { "altr group \($0.id) is \($0.entities), not [tmap \(t), base \(d[0])]" }
                        ?? "no altr group lists [tmap \(t), base \(d[0])]", g?.offset ?? item(t)?.offset)
            }
        }
    }

    /// Each Exif item's header offset leads to a TIFF header.
    private func validateExifOffsets(_ out: inout ValidationFindings) {
        for id in exifItems {
            guard let p = payload(of: id), p.count >= 8 else { continue }
            let declared = UInt64(p[0]) << 24 | UInt64(p[1]) << 16 | UInt64(p[2]) << 8 | UInt64(p[3])
            let start = 4 + Int(min(declared, UInt64(p.count)))
            let ok =
                start + 4 <= p.count
                && ((p[start] == 0x49 && p[start + 1] == 0x49) || (p[start] == 0x4D && p[start + 1] == 0x4D))
            if !ok {
                out.add(
                    .containerExifBadOffset,
                    "Exif item \(id) declares TIFF header offset \(declared), which does not lead to a TIFF header",
                    item(id)?.offset)
            }
        }
    }
}

/// The findings of `HEIFFile.validate`, in the order the checks emit them.
struct ValidationFindings {
    private(set) var all: [Finding] = []

    mutating func add(_ code: FindingCode, _ message: String, _ offset: Int?) {
        all.append(code.finding(message, evidence: Evidence(offset: offset)))
    }
}
