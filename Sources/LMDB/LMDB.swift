import CLMDB
