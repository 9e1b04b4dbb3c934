//! `tessera eval --batch` on several threads: the answers are those of one thread, line for
//! line in input order, whatever mix of results, errors, blank lines and comments the input has.

use std::process::Command;

fn batch(path: &std::path::Path, jobs: &[&str]) -> (String, Option<i32>) {
    let mut args = vec!["eval", "--batch", path.to_str().unwrap()];
    args.extend_from_slice(jobs);
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(&args)
        .output()
        .expect("run tessera");
    (String::from_utf8(out.stdout).unwrap(), out.status.code())
}

/// The lines of a block: a block is answered while the next is read.
const BLOCK: usize = tessera::batch::BLOCK_LINES;

/// `input` written to a file of its own (in a folder of its own, removed by the caller).
fn input_file(tag: &str, input: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("tessera-batch-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("lines.txt");
    std::fs::write(&path, input).unwrap();
    (dir, path)
}

#[test]
fn threads_answer_in_input_order() {
    // Several full blocks; a short last block (answered by the reader alone) after a block
    // still being answered by the helpers; a file that ends on a block's end; one short block.
    for n in [20_000, 2 * BLOCK + 100, 2 * BLOCK, 300] {
        answers_in_order(n);
    }
}

fn answers_in_order(n: usize) {
    let kinds = [
        "composition((6,2):(8,2),(4,3):(3,1))",
        "logical_divide((8,3):(1,8),3:1)",
        "composition((4,3):(0,1),(2,3):(2,1))",
        "",
        "# a comment",
        "zipped_divide((4,7):(1,16),(2,7))",
        "(2+3)*4",
        "size((4,8):(8,1))",
        "complement(4:1, 0)",
        "(4,8",
        "blocked_product((8,8):(8,1),2:1)",
    ];
    // Enough lines for several blocks on every thread, each line made distinct by an index.
    let mut input = String::new();
    for i in 0..n {
        let k = kinds[i % kinds.len()];
        if k.starts_with("size") {
            input.push_str(&format!("{i}+{k}\n"));
        } else {
            input.push_str(k);
            input.push('\n');
        }
    }
    let (dir, path) = input_file(&format!("lines-{n}"), &input);
    let (one, c1) = batch(&path, &["-j1"]);
    assert_eq!(c1, Some(0));
    assert_eq!(one.lines().count(), n);
    for threads in [&["-j", "2"][..], &["--jobs", "3"][..], &[][..]] {
        let (many, c) = batch(&path, threads);
        assert_eq!(c, Some(0));
        assert!(
            many == one,
            "{n} lines, {threads:?}: answers differ from one thread's"
        );
    }
    // Each line's answer is its own: the indexed sizes come back in order.
    for (i, line) in one.lines().enumerate() {
        if kinds[i % kinds.len()].starts_with("size") {
            assert_eq!(line, (i + 32).to_string());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn long_lines_end_blocks_by_their_bytes() {
    // 1,600 lines of about 4 KB: past `BLOCK_BYTES` well before `BLOCK_LINES`, so the file is
    // answered as two blocks cut by their bytes, the second while the first is gathered.
    const { assert!(1_600 * 4_000 > tessera::batch::BLOCK_BYTES && 1_600 < BLOCK) };
    let mut input = String::new();
    for i in 0..1_600 {
        let terms = 1_000 + i % 7;
        input.push_str(&vec!["4"; terms].join("+"));
        input.push('\n');
    }
    let (dir, path) = input_file("long", &input);
    let (one, c1) = batch(&path, &["-j1"]);
    assert_eq!(c1, Some(0));
    let expect: String = (0..1_600).map(|i| format!("{}\n", 4 * (1_000 + i % 7))).collect();
    assert!(one == expect, "one thread's answers are the sums");
    let (two, c2) = batch(&path, &["-j", "2"]);
    assert_eq!(c2, Some(0));
    assert!(two == one, "two threads' answers differ from one thread's");
    std::fs::remove_dir_all(&dir).ok();
}
