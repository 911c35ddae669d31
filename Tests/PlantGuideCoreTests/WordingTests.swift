import PlantGuideCore
import Testing

@Suite struct WordingTests {
    @Test(arguments: [
        (0, "request", nil, "0 requests"), (1, "request", nil, "1 request"), (2, "care event", nil, "2 care events"),
        (1, "care event", nil, "1 care event"), (1, "species", "species", "1 species"), (3, "family", "families", "3 families"),
    ] as [(Int, String, String?, String)])
    func countsTakeTheNounInTheRightNumber(count: Int, singular: String, plural: String?, expected: String) {
        #expect(counted(count, singular, plural: plural) == expected)
    }

    @Test(arguments: [
        ("snake plant", #""snake plant""#), ("fern", #""fern""#), (#"say "hi" $HOME `x` \"#, #""say \"hi\" \$HOME \`x\` \\""#),
        ("Philodendron 'Birkin'", #""Philodendron 'Birkin'""#),
    ])
    func shellQuotingMakesOneWord(text: String, expected: String) {
        #expect(shellQuoted(text) == expected)
    }
}
