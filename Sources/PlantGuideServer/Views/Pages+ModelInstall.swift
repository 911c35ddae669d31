import Foundation

extension Pages {
    /// What the On-device model card shows: the models on offer, the running (or last) install, the installed files.
    struct ModelInstallState {
        var choices: [ModelInstallCapability.Choice]
        var status: ModelInstallStatus
        /// Installed model files, and the one in use.
        var files: (names: [String], current: String?)
        /// Whether this session may install and remove (an owner of the installation, or no accounts).
        var mayChange: Bool
    }

    /// The running download with its progress (updated by the page's script), or the last install's outcome, then
    /// the models to download and the installed ones to remove.
    static func modelInstallSection(_ state: ModelInstallState, context: AppRequestContext) -> HTML {
        let status = state.status
        var parts: [HTML] = []
        if status.isRunning {
            let bar: HTML = status.progress.total.map { "<progress max=\"\(String($0))\" value=\"\(String(status.progress.received))\" aria-labelledby=\"install-text\"></progress>" as HTML }
                ?? "<progress aria-labelledby=\"install-text\"></progress>"
            parts.append("""
                <div class="install" data-model-install>
                \(bar)
                <p id="install-text" role="status" aria-live="polite" data-install-text>\(status.text)</p>
                \(state.mayChange ? """
                <form method="post" action="/settings/model/cancel">\(Layout.csrfField(context))<button type="submit" class="secondary">Stop the download</button></form>
                """ as HTML : "")
                </div>
                """)
        } else if !status.text.isEmpty {
            let kind = status.state == .failed ? "error" : "notice"
            parts.append("<p class=\"\(kind)\" role=\"status\">\(status.text)</p>")
            if status.state == .installed {
                parts.append("<p>Saved plants identified with another model can be re-scored with this one under <a href=\"#recheck\">Re-checks</a>.</p>")
            }
        }
        if state.mayChange, !status.isRunning {
            let offers: [HTML] = state.choices.map { choice in
                let title = choice.partialBytes.map { "Resume \(choice.label) (\(String(format: "%.1f", Double($0) / 1_048_576)) MiB kept)" }
                    ?? (choice.installed ? "Download \(choice.label) again" : "Download \(choice.label)")
                return """
                <li><form method="post" action="/settings/model/install">\(Layout.csrfField(context))
                <input type="hidden" name="architecture" value="\(choice.architecture)">
                <button type="submit"\(choice.installed ? " class=\"secondary\"" : "")>\(title)</button>
                <span class="meta">\(choice.summary)</span></form></li>
                """
            }
            parts.append("""
                <h3>Download a model</h3>
                <p>PlantNet-300K weights from their Zenodo record, checked against its published checksum; the model is used \
                once it is whole and checked. A stopped download resumes where it ended.</p>
                <ul class="plain">\(offers)</ul>
                """)
            parts.append("""
                <h3>Or upload a checkpoint</h3>
                <form data-model-upload hidden action="/settings/model/upload">\(Layout.csrfField(context))
                <label for="checkpoint">A PlantNet-300K checkpoint such as resnet50_weights_best_acc.tar (at most 1 GiB)</label>
                <input id="checkpoint" name="checkpoint" type="file" accept=".tar,.pth,.pt">
                <p><button type="submit" class="secondary">Upload and install</button></p>
                <progress hidden aria-labelledby="upload-text"></progress>
                <p id="upload-text" role="status" aria-live="polite" data-upload-text></p>
                </form>
                <noscript><p class="meta">Uploading needs JavaScript. Without it, copy the file to the server and run \
                <code>plantguide model install FILE</code>.</p></noscript>
                """)
            let removable = state.files.names.filter { $0 != state.files.current }
            if !removable.isEmpty {
                let items: [HTML] = removable.map { name in
                    """
                    <li><form method="post" action="/settings/model/remove">\(Layout.csrfField(context))
                    <input type="hidden" name="model" value="\(name)">\(name) <button type="submit" class="secondary">Remove</button></form></li>
                    """
                }
                parts.append("<h3>Other installed models</h3><ul class=\"plain\">\(items)</ul>")
            }
        } else if !state.mayChange {
            parts.append("<p class=\"meta\">Only an owner of the household that runs this PlantGuide can install or remove models.</p>")
        }
        return HTML(unsafeMarkup: parts.map(\.description).joined(separator: "\n"))
    }
}
