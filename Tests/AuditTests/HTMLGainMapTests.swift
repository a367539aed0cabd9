import AVIFCodec
import Foundation
import ReportModel
import TestSupport
import Testing

@testable import Audit
@testable import ReportWriting

/// The HTML report shows a JPEG's gain map in the same four parts as a HEIF's, labelled by its MPF image, and says
/// which library decoded each image.
@Test func htmlShowsJPEGGainMapPartsLikeHEIFsAndTheDecoder() throws {
    let auditor = FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess)
    func audit(_ path: String) -> FileResult {
        let url = Repo.root.appendingPathComponent(path)
        return auditor.audit(AuditJob(name: url.lastPathComponent, source: nil, output: url))
    }
    let jpeg = audit("Corpus/jpeg/ultrahdr.jpg")
    let heic = audit("Corpus/heic/good.heic")
    #expect(jpeg.gainMaps.count == 1 && jpeg.gainMaps.first?.isComplete == true, "\(jpeg.gainMaps)")
    #expect(!heic.gainMaps.isEmpty, "\(heic.gainMaps)")

    let jpegHTML = HTMLRenderer.detail(jpeg, index: 0, gate: .error, thumbnails: ThumbnailLinks())
    let heicHTML = HTMLRenderer.detail(heic, index: 1, gate: .error, thumbnails: ThumbnailLinks())
    #expect(jpegHTML.contains("<th>MPF image</th>") && jpegHTML.contains("the gain map is an MPF image"))
    #expect(jpegHTML.contains("<tr><td>ultrahdr</td><td>\(jpeg.gainMaps[0].item.map(String.init) ?? "—")</td>"))
    #expect(jpegHTML.components(separatedBy: "class=\"part pass\"").count - 1 == 4, "\(jpegHTML)")
    #expect(heicHTML.contains("<th>item</th>") && !heicHTML.contains("MPF image"))
    #expect(heicHTML.contains("<td>primary (libheif "), "\(heicHTML)")
}
