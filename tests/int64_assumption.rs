//! A proof over an unbounded parameter whose offsets leave int64 at some admitted value is
//! printed with its assumption and witness in every report (text, JSON, JUnit, HTML); bounded
//! parameters that admit such a value are bad input naming it; layouts that always fit print
//! no assumption (issue 26).

#[path = "support/cli.rs"]
mod cli;
use cli::tessera;

const FILE: &str = "\
param N where N >= 4
param B where 4 <= B <= 9223372036854775800
assert injective((2,4):(N,1))
assert injective((4,2):(B,1))
assert injective((4,N):(1,4))
assert injective((1,4):(N,1))
";

#[test]
fn every_report_states_the_int64_assumption() {
    let dir = std::env::temp_dir().join(format!("tessera-int64-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("int64.tess");
    std::fs::write(&f, FILE).unwrap();
    let (junit, html) = (dir.join("r.xml"), dir.join("r.html"));
    let out = tessera(&[
        "check",
        f.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let at = |line: usize| {
        let k = lines
            .iter()
            .position(|l| l.contains(&format!(":{line}: ")))
            .unwrap();
        (lines[k], lines.get(k + 1).copied().unwrap_or(""))
    };
    let (l3, d3) = at(3);
    assert!(
        l3.contains("proved") && d3.starts_with("    assuming offsets fit in int64 ("),
        "{text}"
    );
    assert!(d3.contains("leaves int64 at N = "), "{text}");
    let (l4, d4) = at(4);
    assert!(
        l4.contains("bad input") && d4.contains("B = ") && d4.contains("i64"),
        "{text}"
    );
    let (l5, d5) = at(5);
    assert!(
        l5.contains("proved") && d5.contains("assuming offsets fit in int64"),
        "{text}"
    );
    let (l6, d6) = at(6);
    assert!(l6.contains("proved") && !d6.contains("assuming"), "{text}");
    assert!(
        text.contains("4 assertions: 3 proved, 0 refuted, 0 unknown, 1 bad input"),
        "{text}"
    );

    let out = tessera(&["check", f.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &json["results"];
    assert!(
        r[0]["assumption"]
            .as_str()
            .unwrap()
            .contains("leaves int64 at N = "),
        "{json}"
    );
    assert_eq!(r[1]["verdict"], "bad input");
    assert!(
        r[2]["assumption"].is_string() && r[3]["assumption"].is_null(),
        "{json}"
    );

    let x = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(x.matches("<property name=\"assumption\"").count(), 2, "{x}");
    let h = std::fs::read_to_string(&html).unwrap();
    assert_eq!(h.matches("assuming offsets fit in int64").count(), 2);
}

/// The shipped examples stay proved; only the unbounded identities need the assumption.
#[test]
fn the_examples_need_the_assumption_only_where_a_parameter_is_unbounded() {
    let out = tessera(&["check", "examples/", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &json["summary"];
    assert_eq!(s["proved"], s["assertions"], "{s}");
    for r in json["results"].as_array().unwrap() {
        if r["assumption"].is_string() {
            assert!(
                r["file"].as_str().unwrap().ends_with("unbounded_identities.tess"),
                "{r}"
            );
        }
    }
}
