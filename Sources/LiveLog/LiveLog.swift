import LMDB
