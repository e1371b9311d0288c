module @jit_fn attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xi32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> (tensor<4x3xi32> {jax.result_info = "result", mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<4x3xi32>) -> tensor<4x3xi32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x3xi32>) -> tensor<2x3xi32>
    %2 = call @shmap_body(%1) : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<2x3xi32>) -> tensor<4x3xi32>
    return %4 : tensor<4x3xi32>
  }
  func.func private @shmap_body(%arg0: tensor<2x3xi32>) -> (tensor<2x3xi32> {jax.result_info = "[('x',), None]"}) {
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<2> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.remainder %1, %c_0 : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
    %5 = stablehlo.add %arg0, %4 : tensor<2x3xi32>
    return %5 : tensor<2x3xi32>
  }
}
