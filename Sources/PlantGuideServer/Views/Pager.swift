/// One page of a long list: which items it shows, and links to the others.
struct Pager: Equatable {
    /// Items per page of the Browse lists.
    static let browsePageSize = 60

    /// The page shown, from 1.
    let number: Int
    /// How many pages the list has (at least 1, so an empty list has its one, empty, page).
    let pageCount: Int
    /// The positions of the items on this page.
    let range: Range<Int>

    /// The page `number` of a list of `total` items, or `nil` when the list has no such page.
    init?(number: Int, total: Int, size: Int = Pager.browsePageSize) {
        let pageCount = max(1, (total + size - 1) / size)
        guard (1...pageCount).contains(number) else { return nil }
        self.number = number
        self.pageCount = pageCount
        range = (number - 1) * size..<min(number * size, total)
    }

    /// The page that holds the item at `position`.
    static func page(of position: Int, size: Int = Pager.browsePageSize) -> Int { position / size + 1 }

    /// The page numbers to link: the first, the last, and two either side of this one; `nil` marks a gap.
    var shownNumbers: [Int?] {
        let near = Set([1, pageCount] + Array(max(1, number - 2)...min(pageCount, number + 2)))
        var shown: [Int?] = []
        for page in near.sorted() {
            if let last = shown.last ?? nil, page > last + 1 { shown.append(nil) }
            shown.append(page)
        }
        return shown
    }

    /// Previous and next links and the page numbers, or nothing when the list fits on one page. `href` gives the
    /// address of a page.
    func navigation(label: String, href: (Int) -> String) -> HTML {
        guard pageCount > 1 else { return "" }
        let previous: HTML =
            number > 1
            ? "<a class=\"button secondary\" rel=\"prev\" href=\"\(href(number - 1))\">← Previous</a>"
            : "<span class=\"button secondary\" aria-disabled=\"true\">← Previous</span>"
        let next: HTML =
            number < pageCount
            ? "<a class=\"button secondary next\" rel=\"next\" href=\"\(href(number + 1))\">Next →</a>"
            : "<span class=\"button secondary next\" aria-disabled=\"true\">Next →</span>"
        let numbers: [HTML] = shownNumbers.map { page in
            guard let page else { return "<li aria-hidden=\"true\">…</li>" }
            let current: HTML = page == number ? #" aria-current="page""# : ""
            return "<li><a href=\"\(href(page))\"\(current)><span class=\"visually-hidden\">Page </span>\(page)</a></li>"
        }
        return """
            <nav class="pager" aria-label="\(label)">\(previous)<ol>\(numbers)</ol>\(next)</nav>
            """
    }
}
