/// One file the UI serves from the binary: its path under `/assets/`, media type and bytes.
package struct UIAsset: Sendable {
    package var path: String
    package var contentType: String
    package var bytes: [UInt8]

    package init(path: String, contentType: String, text: String) {
        self.path = path
        self.contentType = contentType
        self.bytes = Array(text.utf8)
    }

    /// The page every UI route answers with (the script reads the path and draws the view).
    package static let page = UIAsset(path: "/", contentType: "text/html; charset=utf-8", text: UIPage.html)

    /// Everything under `/assets/`.
    package static let all: [UIAsset] = [
        UIAsset(path: "/assets/app.css", contentType: "text/css; charset=utf-8", text: UIStylesheet.css),
        UIAsset(
            path: "/assets/app.js", contentType: "text/javascript; charset=utf-8",
            text: [UIScript.core, UIScript.overview, UIScript.firestore, UIScript.database, UIScript.requests, UIScript.logs, UIScript.start]
                .joined(separator: "\n")),
        UIAsset(path: "/assets/icon.svg", contentType: "image/svg+xml", text: UIPage.icon),
    ]
}
