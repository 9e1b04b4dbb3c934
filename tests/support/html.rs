//! Checks of the HTML report's text shared by its tests: the tags balance, and nothing
//! refers to anything outside the page.

#![allow(dead_code)]

/// Elements without a closing tag that the report uses.
const VOID: [&str; 3] = ["meta", "input", "br"];

/// An opening tag: the element's name and everything between `<` and `>`.
pub struct Tag {
    /// The element's name.
    pub name: String,
    /// The tag's text, attributes included.
    pub text: String,
}

/// The report's elements in document order, checked to nest properly (every closing tag
/// closes the innermost open element; `<style>` and `<script>` hold raw text). Returns the
/// opening tags.
pub fn balanced_tags(html: &str) -> Vec<Tag> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        if rest.starts_with("!DOCTYPE") {
            continue;
        }
        let end = rest.find('>').expect("a tag ends");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(open, name, "</{name}> closes <{open}>");
            continue;
        }
        let name: String = tag.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        assert!(!name.is_empty(), "a tag without a name: <{tag}>");
        names.push(Tag {
            name: name.clone(),
            text: tag.to_string(),
        });
        if name == "style" || name == "script" {
            let close = format!("</{name}>");
            let e = rest
                .find(&close)
                .unwrap_or_else(|| panic!("<{name}> is not closed"));
            assert!(!rest[..e].contains('<'), "<{name}> holds a tag");
            rest = &rest[e + close.len()..];
        } else if !VOID.contains(&name.as_str()) && !tag.ends_with('/') {
            // `<rect ... />`: a self-closing element of the inline SVG.
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    names
}

/// Asserts that the page refers to nothing outside itself: no tag has a `src`, `href`,
/// `action`, `srcset`, `poster` or `data` attribute, an event handler (`on...=`) or a URL
/// (`http:`, `https:`, protocol-relative `//`); the stylesheet has no `url(` or `@import`; and
/// the page's Content-Security-Policy forbids every request.
pub fn self_contained(html: &str) {
    for tag in balanced_tags(html) {
        let t = tag.text.to_ascii_lowercase();
        for bad in [
            " src=", " href=", " action=", " srcset=", " poster=", " data=", " on", "http:", "https:",
            "\"//", "'//", "=//",
        ] {
            assert!(!t.contains(bad), "<{}> holds {bad:?}", tag.text);
        }
    }
    let style = &html[html.find("<style>").expect("a stylesheet")..html.find("</style>").unwrap()];
    for bad in ["url(", "@import", "//"] {
        assert!(!style.contains(bad), "the stylesheet holds {bad:?}");
    }
    assert!(
        html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\""),
        "the page's Content-Security-Policy is missing"
    );
}
