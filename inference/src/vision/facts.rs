//! Facts about a picture that need no model: orientation, main colours with plain names, brightness.

use image::RgbImage;

use crate::{Colour, PictureFacts};

/// At most this many colours are reported, and only those covering at least `MIN_SHARE` of the picture.
const MAX_COLOURS: usize = 5;
const MIN_SHARE: f32 = 0.05;
/// Pixels looked at: a regular grid of about this many is as good as all of them for shares.
const SAMPLES: u32 = 40_000;
/// Sides within this ratio of each other make a square.
const SQUARE_TOLERANCE: f32 = 0.05;

/// Orientation, up to 5 main colours with plain English names and shares, mean brightness.
pub fn facts(image: &RgbImage) -> PictureFacts {
    let (width, height) = image.dimensions();
    let orientation = orientation(width, height).to_owned();
    let total = u64::from(width) * u64::from(height);
    if total == 0 {
        return PictureFacts { width, height, orientation, colours: Vec::new(), brightness: 0.0 };
    }
    let step = ((total as f64 / f64::from(SAMPLES)).sqrt().floor() as u32).max(1);
    let mut counts: Vec<(&'static str, u32)> = Vec::new();
    let mut luma_sum = 0.0f64;
    let mut n = 0u32;
    for y in (0..height).step_by(step as usize) {
        for x in (0..width).step_by(step as usize) {
            let [r, g, b] = image.get_pixel(x, y).0;
            luma_sum += f64::from(0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b)) / 255.0;
            let name = colour_name(r, g, b);
            match counts.iter_mut().find(|(c, _)| *c == name) {
                Some((_, count)) => *count += 1,
                None => counts.push((name, 1)),
            }
            n += 1;
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let colours = counts
        .into_iter()
        .map(|(name, count)| Colour { name: name.to_owned(), share: count as f32 / n as f32 })
        .filter(|c| c.share >= MIN_SHARE)
        .take(MAX_COLOURS)
        .collect();
    PictureFacts { width, height, orientation, colours, brightness: (luma_sum / f64::from(n)) as f32 }
}

fn orientation(width: u32, height: u32) -> &'static str {
    let (w, h) = (width as f32, height as f32);
    if (w - h).abs() <= SQUARE_TOLERANCE * w.max(h) {
        "square"
    } else if w > h {
        "landscape"
    } else {
        "portrait"
    }
}

/// A plain English name for a colour, from its hue, saturation and lightness (HSL): greys first, then a
/// hue family with "dark" or "light" where the lightness says so; dark oranges are brown, pale ones beige.
fn colour_name(r: u8, g: u8, b: u8) -> &'static str {
    let (h, s, l) = hsl(r, g, b);
    if l < 0.1 {
        return "black";
    }
    if l > 0.93 {
        return "white";
    }
    if s < 0.15 || (s < 0.25 && !(0.2..=0.8).contains(&l)) {
        return match l {
            l if l < 0.3 => "dark grey",
            l if l > 0.75 => "light grey",
            _ => "grey",
        };
    }
    let family = match h {
        h if !(15.0..345.0).contains(&h) => "red",
        h if h < 45.0 => "orange",
        h if h < 70.0 => "yellow",
        h if h < 160.0 => "green",
        h if h < 195.0 => "teal",
        h if h < 255.0 => "blue",
        h if h < 290.0 => "purple",
        _ => "pink",
    };
    let (dark, light) = (l < 0.3, l > 0.7);
    match family {
        "orange" if l < 0.45 => "brown",
        "red" if dark && s < 0.5 => "brown",
        "orange" | "yellow" if light && s < 0.85 => "beige",
        "red" if light => "pink",
        "red" if dark => "dark red",
        "green" if dark => "dark green",
        "blue" if dark => "dark blue",
        "green" if light => "light green",
        "blue" if light => "light blue",
        _ => family,
    }
}

/// Hue in degrees, saturation and lightness in 0..1.
fn hsl(r: u8, g: u8, b: u8) -> (f32, f32, f32) {
    let (r, g, b) = (f32::from(r) / 255.0, f32::from(g) / 255.0, f32::from(b) / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let l = (max + min) / 2.0;
    let d = max - min;
    if d <= f32::EPSILON {
        return (0.0, 0.0, l);
    }
    let s = d / (1.0 - (2.0 * l - 1.0).abs());
    let h = if max == r {
        60.0 * ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    (h, s, l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    #[test]
    fn orientation_follows_the_sides() {
        assert_eq!(facts(&RgbImage::new(300, 200)).orientation, "landscape");
        assert_eq!(facts(&RgbImage::new(200, 300)).orientation, "portrait");
        assert_eq!(facts(&RgbImage::new(300, 290)).orientation, "square");
    }

    #[test]
    fn a_half_blue_half_white_picture_has_those_two_colours_in_halves() {
        // Arrange
        let picture =
            RgbImage::from_fn(400, 400, |x, _| if x < 200 { Rgb([20, 60, 220]) } else { Rgb([255, 255, 255]) });
        // Act
        let facts = facts(&picture);
        // Assert
        let names: Vec<&str> = facts.colours.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.contains(&"blue") && names.contains(&"white"), "{names:?}");
        for c in &facts.colours {
            assert!((c.share - 0.5).abs() < 0.02, "{c:?}");
        }
        assert!(facts.brightness > 0.5 && facts.brightness < 0.65, "{}", facts.brightness);
    }

    #[test]
    fn plain_colours_get_plain_names() {
        for (rgb, name) in [
            ([0, 0, 0], "black"),
            ([255, 255, 255], "white"),
            ([128, 128, 128], "grey"),
            ([220, 30, 30], "red"),
            ([30, 160, 40], "green"),
            ([20, 80, 30], "dark green"),
            ([250, 220, 20], "yellow"),
            ([250, 140, 20], "orange"),
            ([120, 70, 30], "brown"),
            ([140, 190, 240], "light blue"),
            ([130, 40, 170], "purple"),
            ([245, 225, 190], "beige"),
        ] {
            assert_eq!(colour_name(rgb[0], rgb[1], rgb[2]), name, "{rgb:?}");
        }
    }

    #[test]
    fn at_most_five_colours_and_black_is_dark() {
        let stripes =
            [[0, 0, 0], [255, 255, 255], [220, 30, 30], [30, 160, 40], [20, 60, 220], [250, 220, 20], [130, 40, 170]];
        let picture = RgbImage::from_fn(700, 100, |x, _| Rgb(stripes[(x / 100) as usize]));
        assert_eq!(facts(&picture).colours.len(), 5);
        assert!(facts(&RgbImage::new(50, 50)).brightness < 0.01);
    }
}
