module @jit_fn attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x3xf64> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<8x3xf64> {jax.result_info = "result", mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<8x3xf64>) -> tensor<8x3xf64>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x3xf64>) -> tensor<2x3xf64>
    %2 = call @shmap_body(%1) : (tensor<2x3xf64>) -> tensor<2x3xf64>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2x3xf64>) -> tensor<2x3xf64>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<2x3xf64>) -> tensor<8x3xf64>
    return %4 : tensor<8x3xf64>
  }
  func.func private @shmap_body(%arg0: tensor<2x3xf64>) -> (tensor<2x3xf64> {jax.result_info = "[('x',), None]"}) {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f64>, %arg2: tensor<f64>):
      %1 = stablehlo.add %arg1, %arg2 : tensor<f64>
      stablehlo.return %1 : tensor<f64>
    }) : (tensor<2x3xf64>) -> tensor<2x3xf64>
    return %0 : tensor<2x3xf64>
  }
}
