//! `include/skidpad.h` is what cbindgen writes from `src/` today: a change
//! to the ABI that is not in the header fails here.
//! `SKIDPAD_BLESS=1 cargo test -p skidpad-c --test header` rewrites it.

use std::path::Path;

#[test]
fn the_header_in_the_tree_is_the_one_the_code_gives() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml reads");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = crate_dir.join("include/skidpad.h");
    if std::env::var_os("SKIDPAD_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("include/skidpad.h is writable");
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == generated,
        "c-abi/include/skidpad.h is not what the code gives: run \
         `SKIDPAD_BLESS=1 cargo test -p skidpad-c --test header` and commit the header"
    );
}
