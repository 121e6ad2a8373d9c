import Foundation
import GitHubSearch
import Testing

@Suite struct PageLinksTests {
  /// The Link header of the real 2014 tetris answer (octokit/octokit.rb cassette).
  private let tetris2014 =
    #"<https://api.github.com/search/repositories?sort=stars&order=desc&q=tetris+language%3Aassembly&page=2>; rel="next", <https://api.github.com/search/repositories?sort=stars&order=desc&q=tetris+language%3Aassembly&page=3>; rel="last""#

  @Test func realHeaderGivesNextAndLastPages() {
    let links = PageLinks(header: tetris2014)
    #expect(links.nextPage == 2)
    #expect(links.lastPage == 3)
    #expect(links.previous == nil && links.first == nil)
    #expect(links.next?.host == "api.github.com")
  }

  @Test func lastPageHasOnlyFirstAndPrevious() {
    let header =
      #"<https://api.github.com/search/repositories?page=1&per_page=1&q=octokit+language%3APython>; rel="first", <https://api.github.com/search/repositories?page=1&per_page=1&q=octokit+language%3APython>; rel="prev""#
    let links = PageLinks(header: header)
    #expect(links.next == nil && links.nextPage == nil && links.lastPage == nil)
    #expect(links.previousPage == 1)
    #expect(links.first != nil)
  }

  @Test func missingOrEmptyHeaderMeansOnePage() {
    #expect(PageLinks(header: nil) == PageLinks())
    #expect(PageLinks(header: "") == PageLinks())
    #expect(PageLinks(header: "   ,  , ") == PageLinks())
  }

  @Test func spacingCaseAndParameterOrderDoNotMatter() {
    let header =
      #"  <https://x.test/s?page=4>;type="text/html";REL=Next ,<https://x.test/s?page=9> ; title="a, b; c" ; rel = "LAST""#
    let links = PageLinks(header: header)
    #expect(links.nextPage == 4)
    #expect(links.lastPage == 9)
  }

  @Test func oneLinkCanCarrySeveralRelations() {
    let links = PageLinks(header: #"<https://x.test/s?page=2>; rel="next last""#)
    #expect(links.nextPage == 2)
    #expect(links.lastPage == 2)
  }

  @Test func commasInsideTheTargetDoNotSplitIt() {
    let links = PageLinks(
      header: #"<https://x.test/s?q=a,b&page=3>; rel="next", <https://x.test/s?q=a,b&page=5>; rel="last""#)
    #expect(links.nextPage == 3)
    #expect(links.lastPage == 5)
    #expect(links.next?.absoluteString == "https://x.test/s?q=a,b&page=3")
  }

  @Test func relativeTargetsResolveAgainstTheRequest() {
    let base = URL(string: "https://api.github.com/search/repositories?q=x&page=1")
    let links = PageLinks(header: #"</search/repositories?q=x&page=2>; rel="next""#, relativeTo: base)
    #expect(links.next?.absoluteString == "https://api.github.com/search/repositories?q=x&page=2")
  }

  @Test func malformedEntriesAreSkippedNotFatal() {
    let header =
      #"https://x.test/s?page=7; rel="next", <https://x.test/s?page=2>; rel="next", <>; rel="last", <https://x.test/s?page=8>; rel="prev", <https://x.test/s?page=9"#
    let links = PageLinks(header: header)
    #expect(links.nextPage == 2)  // the entry without angle brackets is skipped
    #expect(links.last == nil)  // an empty target is no link
    #expect(links.previousPage == 8)  // the unterminated last entry is dropped
  }

  @Test func firstOfTwoLinksWithOneRelationWins() {
    let links = PageLinks(
      header: #"<https://x.test/s?page=2>; rel="next", <https://x.test/s?page=3>; rel="next""#)
    #expect(links.nextPage == 2)
  }

  @Test func pageNumbersMustBeWholeAndPositive() {
    #expect(PageLinks(header: #"<https://x.test/s?page=0>; rel="next""#).nextPage == nil)
    #expect(PageLinks(header: #"<https://x.test/s?page=two>; rel="next""#).nextPage == nil)
    #expect(PageLinks(header: #"<https://x.test/s?q=x>; rel="next""#).nextPage == nil)
    #expect(PageLinks(header: #"<https://x.test/s?q=x>; rel="next""#).next != nil)
  }

  @Test func unknownAndUnquotedRelationsAreHandled() {
    let links = PageLinks(header: #"<https://x.test/a>; rel=alternate, <https://x.test/s?page=6>; rel=last"#)
    #expect(links.lastPage == 6)
    #expect(links.next == nil)
  }

  @Test func quotedValuesMayHoldEscapedQuotes() {
    let links = PageLinks(header: #"<https://x.test/s?page=2>; title="say \"hi\", then; go"; rel="next""#)
    #expect(links.nextPage == 2)
  }
}
