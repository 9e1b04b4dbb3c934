//! The picture as a PNG: its SVG rendered by `resvg` (pure Rust), its text set in the
//! system's fonts (loaded once). A picture larger than [`MAX_PIXELS`] is scaled down to fit.
//! The renderer is the `png` feature (on by default); the Python module is built without it
//! (it draws SVG, TeX and HTML only), which leaves resvg's font and raster crates out of the wheel.

use super::DrawError;
use super::picture::Picture;
#[cfg(feature = "png")]
use resvg::{tiny_skia, usvg};
#[cfg(feature = "png")]
use std::sync::{Arc, OnceLock};

/// The most pixels of a PNG (16 Mpixel, 64 MiB of RGBA while it is rendered).
pub const MAX_PIXELS: f64 = 16_777_216.0;

/// Pixels per SVG unit: 2, for high-DPI screens (a smaller scale where [`MAX_PIXELS`] needs).
pub const SCALE: f64 = 2.0;

/// The system's fonts, loaded on first use.
#[cfg(feature = "png")]
fn fonts() -> Arc<usvg::fontdb::Database> {
    static FONTS: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = usvg::fontdb::Database::new();
            db.load_system_fonts();
            Arc::new(db)
        })
        .clone()
}

impl Picture {
    /// The picture as PNG bytes (its SVG rendered at [`SCALE`] pixels per unit, or scaled
    /// down to at most [`MAX_PIXELS`] pixels). Without the `png` feature, an error that says so.
    ///
    /// @pre the picture lays out (any [`Picture`] does).
    /// @post the bytes start with PNG's signature.
    ///
    /// ```
    /// use tessera::draw::{layout, Color};
    /// use tessera::lang::Session;
    /// let l = Session::default().value("(4,8):(8,1)").unwrap();
    /// let png = layout(&l, Color::Bank32).unwrap().png().unwrap();
    /// assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    /// ```
    #[cfg(feature = "png")]
    pub fn png(&self) -> Result<Vec<u8>, DrawError> {
        let svg = self.svg();
        let opt = usvg::Options {
            fontdb: fonts(),
            ..usvg::Options::default()
        };
        let tree = usvg::Tree::from_str(&svg, &opt).map_err(|e| DrawError::Render(e.to_string()))?;
        let size = tree.size();
        let (w, h) = (f64::from(size.width()), f64::from(size.height()));
        let scale = (MAX_PIXELS / (w * h).max(1.0)).sqrt().min(SCALE);
        let (pw, ph) = (
            (w * scale).ceil().max(1.0) as u32,
            (h * scale).ceil().max(1.0) as u32,
        );
        let mut pixmap = tiny_skia::Pixmap::new(pw, ph)
            .ok_or_else(|| DrawError::Render(format!("a {pw} x {ph} pixmap")))?;
        let s = scale as f32;
        resvg::render(
            &tree,
            tiny_skia::Transform::from_scale(s, s),
            &mut pixmap.as_mut(),
        );
        pixmap.encode_png().map_err(|e| DrawError::Render(e.to_string()))
    }

    /// The picture as PNG bytes: this build has no renderer (the `png` feature is off).
    ///
    /// @post always an error naming the feature.
    ///
    /// ```
    /// use tessera::draw::{layout, Color};
    /// use tessera::lang::Session;
    /// let l = Session::default().value("(4,8):(8,1)").unwrap();
    /// assert!(layout(&l, Color::Bank32).unwrap().png().is_err());
    /// ```
    #[cfg(not(feature = "png"))]
    pub fn png(&self) -> Result<Vec<u8>, DrawError> {
        Err(DrawError::Render(
            "this build of Tessera has no PNG renderer (it was built without the `png` feature); draw as svg, tex or html".to_string(),
        ))
    }
}
