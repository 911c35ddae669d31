import Foundation

extension Pages {
    /// Identify on a server that cannot identify yet, for someone who may change that: download the default model or
    /// paste a Pl@ntNet key, right here.
    static func firstRun(
        _ install: (choices: [ModelInstallCapability.Choice], status: ModelInstallStatus), modelProblem: String?,
        context: AppRequestContext
    ) -> HTML {
        let download: HTML
        if install.status.isRunning {
            download = modelInstallSection(
                ModelInstallState(choices: install.choices, status: install.status, files: ([], nil), mayChange: true), context: context
            )
        } else if let choice = install.choices.first {
            download = """
                <form method="post" action="/settings/model/install">\(Layout.csrfField(context))
                <input type="hidden" name="architecture" value="\(choice.architecture)">
                <button type="submit">Download the on-device model (\(choice.label))</button>
                <p class="meta">\(choice.summary). It identifies offline, without a key.</p></form>
                """
        } else {
            download = ""
        }
        let failed: HTML = install.status.state == .failed && modelProblem == nil
            ? "<p class=\"error\" role=\"status\">\(install.status.text)</p>" : ""
        return Layout.page(
            title: "Identify", tab: .identify, context: context,
            body: """
                <h1>Identify a plant</h1>
                <p>This server cannot identify plants yet. Choose one way, or both:</p>
                \(modelProblem.map { "<p class=\"error\" role=\"status\">\($0)</p>" as HTML } ?? "")
                \(failed)
                <section class="card" aria-labelledby="first-model"><h2 id="first-model">On this server</h2>
                \(download)
                </section>
                <section class="card" aria-labelledby="first-key"><h2 id="first-key">With Pl@ntNet</h2>
                <form method="post" action="/settings/api-key">\(Layout.csrfField(context))
                <label for="apiKey">Paste a free Pl@ntNet API key (from <a href="https://my.plantnet.org/">my.plantnet.org</a>, 500 identifications a day)</label>
                <input id="apiKey" name="apiKey" type="password" autocomplete="new-password" required minlength="8" maxlength="200">
                <p><button type="submit">Save key</button></p>
                </form>
                </section>
                <p>Meanwhile you can <a href="/browse">browse the catalog</a>.</p>
                """
        )
    }
}
