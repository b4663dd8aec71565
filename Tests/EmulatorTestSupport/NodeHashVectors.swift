/// Realtime Database node hash vectors: a value as JSON and the hash the SDKs compute for it
/// (`hash()` in the JS SDK's packages/database/src/core/snap/LeafNode.ts and ChildrenNode.ts);
/// the values are those of urish/firebase-server's `test/firebase-hash.spec.ts`. Checked against
/// the model's node (EmulatorModelTests) and the emulator's write path (DatabaseEmulatorTests).
package let nodeHashVectors: [(String, String)] = [
    ("null", ""),
    ("true", "E5z61QM0lN/U2WsOnusszCTkR8M="),
    ("false", "aSSNoqcS4oQwJ2xxH20rvpp3zP0="),
    ("500", "Ajg9bohDwTVmqR14o1bVJnneryM="),
    (#""Hello World""#, "B8HWXc7zXMjrsnJxPRj7wrNGqt4="),
    (#"{"foo":"bar"}"#, "XnLeTeWQmzTHImTbSMDLg/qMrKY="),
    (#"{"z":1,"a":"2","b":"true","c":false}"#, "8qk5vmuZGXWJx+77SGwjYRM0yPA="),
    (#"{".priority":200,".value":"primitive"}"#, "R9u8hs9fhRzuQ2M/3BQ0uhxz5ys="),
    (#"{".priority":"high",".value":42}"#, "d/2FMFWchvDsa06RLXZhzvM9aQc="),
    (#"{".priority":128.256,"someKey":"value"}"#, "WYR8kBGna+a7E5x75zvhPhzACOQ="),
    (#"{".priority":"high","someKey":"value"}"#, "/KquMIGoCuKO/ipoLoQzqnU0BcI="),
]
