class Reader {
  load(id: string): Promise<Item> {
    return this.cache.get(id)
  }
}

class Writer {
  load(id: string): Promise<Item> {
    return this.cache.get(id)
  }
}
