import Foundation
import PlantStore

extension Pages {
    /// Settings → Users, for owners.
    static func users(_ users: [UserAccount], message: String?, context: AppRequestContext) -> HTML {
        let notice: HTML = message.map { "<div class=\"notice\" role=\"status\">\($0)</div>" } ?? ""
        let rows: [HTML] = users.map { user in
            let you: HTML = user.name.lowercased() == context.user?.name.lowercased() ? " (you)" : ""
            return """
                <li><h3>\(user.name)\(you)</h3><p>\(user.role.rawValue), since \(user.createdAt.formatted(.iso8601.year().month().day()))</p>
                <form method="post" action="/settings/users">\(Layout.csrfField(context))\
                <input type="hidden" name="action" value="passwd"><input type="hidden" name="name" value="\(user.name)">\
                <label for="pw-\(String(user.id))">New password for \(user.name)</label>\
                <input id="pw-\(String(user.id))" name="password" type="password" autocomplete="new-password" minlength="8" required>\
                <p><button type="submit">Set password</button></p></form>
                <form method="post" action="/settings/users">\(Layout.csrfField(context))\
                <input type="hidden" name="action" value="remove"><input type="hidden" name="name" value="\(user.name)">\
                <p><button type="submit">Remove \(user.name)</button></p></form></li>
                """
        }
        return Layout.page(
            title: "Users", tab: .settings, context: context,
            body: """
                <h1>Users</h1>
                <p><a href="/settings">← Settings</a></p>
                \(notice)
                <section class="card" aria-labelledby="accounts"><h2 id="accounts">Accounts</h2>
                <p>An owner manages the settings and the accounts; a member uses the collection. The last owner stays. \
                A new password or a removal ends that account's log-ins at once.</p>
                <ul class="accounts">\(rows)</ul></section>
                <section class="card" aria-labelledby="add"><h2 id="add">Add an account</h2>
                <form method="post" action="/settings/users">
                \(Layout.csrfField(context))
                <input type="hidden" name="action" value="add">
                <label for="name">Name</label>
                <input id="name" name="name" type="text" required maxlength="64" pattern="[A-Za-z0-9._\\-]{1,64}" autocomplete="off" autocapitalize="none" spellcheck="false">
                <label for="role">Role</label>
                <select id="role" name="role"><option value="member" selected>member</option><option value="owner">owner</option></select>
                <label for="password">Password (8 characters or more)</label>
                <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required>
                <p><button type="submit">Add account</button></p>
                </form></section>
                """
        )
    }
}
