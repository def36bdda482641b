# ComputeClasses are imported by <project>/<location>/<cluster>/<name>; the class must carry a
# gpufleet owner label (one gpufleet created).
terraform import gpufleet_gke_compute_class.serve ml-platform/us-central1/ml/globex-l4-serve
