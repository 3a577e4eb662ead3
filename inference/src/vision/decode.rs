//! Turns untrusted image bytes into a bounded RGB picture.
//!
//! The pixel count is checked from the header before any pixel buffer exists, and the decoder gets an
//! allocation cap too, so a small file that claims a huge canvas (a "decompression bomb") costs nothing.

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageError, ImageReader, Limits, RgbImage};

use crate::InferenceError;

/// Bytes a decoder may allocate per allowed pixel: room for 16-bit RGBA plus the decoder's own buffers.
const ALLOC_PER_PIXEL: u64 = 12;

/// Decodes an image (JPEG, PNG, WebP, GIF first frame, BMP, TIFF), refusing more than `max_pixels` before
/// allocating, applying the EXIF orientation, and scaling down so the long side is at most `max_side`.
pub fn decode_image(bytes: &[u8], max_pixels: u64, max_side: u32) -> Result<RgbImage, InferenceError> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| InferenceError::Unreadable(e.to_string()))?;
    let mut limits = Limits::default();
    limits.max_alloc = Some(max_pixels.saturating_mul(ALLOC_PER_PIXEL).max(1 << 20));
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(unreadable)?;
    let (width, height) = decoder.dimensions();
    let pixels = u64::from(width) * u64::from(height);
    if pixels > max_pixels {
        return Err(InferenceError::TooLarge(format!(
            "the image is {width}×{height} ({pixels} pixels); at most {max_pixels} are analysed"
        )));
    }
    if pixels == 0 {
        return Err(InferenceError::Unreadable("the image has no pixels".into()));
    }
    // A broken EXIF block must not cost the picture: it is then shown as stored.
    let orientation = decoder.orientation().ok();
    let mut picture = DynamicImage::from_decoder(decoder).map_err(unreadable)?;
    if let Some(orientation) = orientation {
        picture.apply_orientation(orientation);
    }
    let long = picture.width().max(picture.height());
    if long > max_side && max_side > 0 {
        let scale = f64::from(max_side) / f64::from(long);
        let w = ((f64::from(picture.width()) * scale).round() as u32).max(1);
        let h = ((f64::from(picture.height()) * scale).round() as u32).max(1);
        // Box averaging: fast, and fine for pictures that are only looked at by models.
        picture = picture.thumbnail_exact(w, h);
    }
    Ok(picture.into_rgb8())
}

fn unreadable(e: ImageError) -> InferenceError {
    match e {
        ImageError::Limits(l) => InferenceError::TooLarge(l.to_string()),
        other => InferenceError::Unreadable(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageFormat, Rgb};

    fn png(width: u32, height: u32) -> Vec<u8> {
        let picture = RgbImage::from_pixel(width, height, Rgb([10, 200, 30]));
        let mut out = Cursor::new(Vec::new());
        picture.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn decode_refuses_more_pixels_than_allowed() {
        // Arrange
        let bytes = png(200, 100);
        // Act
        let refused = decode_image(&bytes, 19_999, 4096);
        let allowed = decode_image(&bytes, 20_000, 4096);
        // Assert
        assert!(matches!(refused, Err(InferenceError::TooLarge(_))), "{refused:?}");
        assert_eq!(allowed.unwrap().dimensions(), (200, 100));
    }

    #[test]
    fn decode_refuses_a_huge_canvas_from_the_header_alone() {
        // A PNG header claiming 100000×100000 pixels with no pixel data behind it.
        let mut bytes = png(1, 1);
        bytes[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let result = decode_image(&bytes, 50_000_000, 4096);
        assert!(matches!(result, Err(InferenceError::TooLarge(_) | InferenceError::Unreadable(_))), "{result:?}");
    }

    #[test]
    fn decode_scales_the_long_side_down() {
        let picture = decode_image(&png(1000, 400), 1_000_000, 500).unwrap();
        assert_eq!(picture.dimensions(), (500, 200));
        assert_eq!(picture.get_pixel(250, 100), &Rgb([10, 200, 30]));
    }

    #[test]
    fn decode_calls_garbage_unreadable() {
        let result = decode_image(b"this is not an image", 1_000_000, 500);
        assert!(matches!(result, Err(InferenceError::Unreadable(_))), "{result:?}");
    }
}
