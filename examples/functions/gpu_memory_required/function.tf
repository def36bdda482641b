# GPU memory for serving a 7B model in fp16: 14 GB of weights × 1.2 = 16.8 GB = 15.65 GiB.
output "llama_7b_inference_gib" {
  value = provider::gpufleet::gpu_memory_required(7, "fp16", "inference")
}

# QLoRA fine-tuning of a 65B model: 4-bit base plus adapters, 40.92 GiB before activations.
output "qlora_65b_gib" {
  value = provider::gpufleet::gpu_memory_required(65, "int4", "training", "qlora")
}
